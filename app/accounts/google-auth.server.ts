import { createCookieSessionStorage } from '@remix-run/node'
import { Authenticator, type StrategyVerifyCallback } from 'remix-auth'
import {
  type GoogleExtraParams,
  type GoogleProfile,
  GoogleStrategy,
  type GoogleStrategyOptions,
} from 'remix-auth-google'
import type { OAuth2StrategyVerifyParams } from 'remix-auth-oauth2'
import { findOrCreateGoogleUser } from '#domain/accounts/google-account.server.ts'
import type { User } from '#platform/db-schema.ts'
import { getDb } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { publicOrigin, usesSecureCookies } from '#platform/public-url.server.ts'

const GOOGLE_CALLBACK_PATH = '/api/auth/google/callback'

type Endpoints = { authorizationURL: string; tokenURL: string; userInfoURL: string }
type VerifyGoogle = StrategyVerifyCallback<User, OAuth2StrategyVerifyParams<GoogleProfile, GoogleExtraParams>>

/**
 * remix-auth-google with its three Google endpoints configurable (GOOGLE_*_URL), so that tests
 * and staging can point it at a stand-in. It also refuses a failed userinfo answer.
 */
class GoogleStrategyWithEndpoints extends GoogleStrategy<User> {
  private readonly profileURL: string

  constructor(options: GoogleStrategyOptions & Endpoints, verify: VerifyGoogle) {
    super(options, verify)
    this.authorizationURL = options.authorizationURL
    this.tokenURL = options.tokenURL
    this.profileURL = options.userInfoURL
  }

  protected override async userProfile(accessToken: string): Promise<GoogleProfile> {
    const response = await fetch(this.profileURL, {
      headers: { Authorization: `Bearer ${accessToken}` },
      signal: AbortSignal.timeout(15_000),
    })
    if (!response.ok) throw new Error(`Google userinfo answered ${response.status}`)
    const raw = (await response.json()) as GoogleProfile['_json']
    return {
      provider: 'google',
      id: raw.sub,
      displayName: raw.name,
      name: { familyName: raw.family_name, givenName: raw.given_name },
      emails: [{ value: raw.email }],
      photos: [{ value: raw.picture }],
      _json: raw,
    }
  }
}

export function isGoogleConfigured() {
  const env = getEnv()
  return Boolean(env.GOOGLE_CLIENT_ID && env.GOOGLE_CLIENT_SECRET)
}

let google: { authenticator: Authenticator<User>; stateStorage: ReturnType<typeof createStateStorage> } | undefined

/** Holds only the OAuth state between the start and the callback; SameSite=Lax so it survives Google's redirect back. */
function createStateStorage() {
  const env = getEnv()
  return createCookieSessionStorage({
    cookie: {
      name: 'pawtrait_oauth',
      path: '/api/auth/google',
      httpOnly: true,
      sameSite: 'lax',
      secure: usesSecureCookies(env),
      maxAge: 10 * 60,
      secrets: [env.SESSION_SECRET],
    },
  })
}

/** The remix-auth Authenticator with the Google strategy, built on first use. Call only when isGoogleConfigured(). */
export function getGoogleAuth() {
  if (google) return google
  const env = getEnv()
  const stateStorage = createStateStorage()
  const strategy = new GoogleStrategyWithEndpoints(
    {
      clientID: env.GOOGLE_CLIENT_ID ?? '',
      clientSecret: env.GOOGLE_CLIENT_SECRET ?? '',
      callbackURL: new URL(GOOGLE_CALLBACK_PATH, publicOrigin(env)).toString(),
      authorizationURL: env.GOOGLE_AUTHORIZATION_URL,
      tokenURL: env.GOOGLE_TOKEN_URL,
      userInfoURL: env.GOOGLE_USERINFO_URL,
    },
    async ({ profile }) =>
      findOrCreateGoogleUser(getDb(), {
        googleId: profile.id,
        email: profile._json.email ?? '',
        emailVerified: profile._json.email_verified === true,
        name: profile.displayName ?? '',
      }),
  )
  const authenticator = new Authenticator<User>(stateStorage, { throwOnError: true })
  authenticator.use(strategy)
  google = { authenticator, stateStorage }
  return google
}

/** A Set-Cookie header that drops the OAuth state cookie once the callback is done with it. */
export async function clearOAuthState(request: Request) {
  const { stateStorage } = getGoogleAuth()
  return stateStorage.destroySession(await stateStorage.getSession(request.headers.get('Cookie')))
}
