import { randomBytes } from 'node:crypto'
import { type HttpFake, sendJson, startHttpFake } from './http-fake.ts'

/**
 * A local stand-in for Google's OAuth 2.0 endpoints: GET /authorize redirects straight back to the
 * redirect_uri with a code and the state (as if the user had consented as `profile`), POST /token
 * trades the code for an access token (checking the client credentials and redirect_uri), and GET
 * /userinfo answers the profile for that token.
 */
export interface FakeGoogleProfile {
  sub: string
  email: string
  email_verified: boolean
  name: string
  given_name?: string
  family_name?: string
  picture?: string
}

export interface FakeGoogle {
  url: string
  clientId: string
  clientSecret: string
  /** Who "signs in" at the next /authorize. */
  profile: FakeGoogleProfile
  /** The query of every /authorize request, to check what the app asked for. */
  authorizeRequests: URLSearchParams[]
  env: Record<string, string>
  close(): Promise<void>
}

export async function startFakeGoogle(): Promise<FakeGoogle> {
  const codes = new Map<string, { profile: FakeGoogleProfile; redirectUri: string }>()
  const tokens = new Map<string, FakeGoogleProfile>()
  const newSecret = () => randomBytes(12).toString('hex')

  const fake: Omit<FakeGoogle, 'url' | 'env' | 'close'> = {
    clientId: 'fake-client-id.apps.googleusercontent.com',
    clientSecret: 'fake-client-secret',
    profile: { sub: '1000', email: 'someone@gmail.com', email_verified: true, name: 'Some One' },
    authorizeRequests: [],
  }

  const server: HttpFake = await startHttpFake((request, response) => {
    if (request.method === 'GET' && request.path === '/authorize') {
      fake.authorizeRequests.push(request.query)
      const redirectUri = request.query.get('redirect_uri') ?? ''
      if (request.query.get('client_id') !== fake.clientId || !redirectUri) {
        return sendJson(response, 400, { error: 'invalid_request' })
      }
      const code = newSecret()
      codes.set(code, { profile: { ...fake.profile }, redirectUri })
      const back = new URL(redirectUri)
      back.searchParams.set('code', code)
      back.searchParams.set('state', request.query.get('state') ?? '')
      response.writeHead(302, { location: back.toString() }).end()
      return
    }
    if (request.method === 'POST' && request.path === '/token') {
      const form = new URLSearchParams(request.body.toString('utf8'))
      const grant = codes.get(form.get('code') ?? '')
      const clientOk = form.get('client_id') === fake.clientId && form.get('client_secret') === fake.clientSecret
      if (!grant || !clientOk || form.get('redirect_uri') !== grant.redirectUri) {
        return sendJson(response, 400, { error: 'invalid_grant' })
      }
      codes.delete(form.get('code') ?? '')
      const accessToken = newSecret()
      tokens.set(accessToken, grant.profile)
      return sendJson(response, 200, {
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: 3599,
        scope: 'openid email profile',
        id_token: 'unused.fake.jwt',
      })
    }
    if (request.method === 'GET' && request.path === '/userinfo') {
      const profile = tokens.get(String(request.headers.authorization ?? '').replace(/^Bearer /, ''))
      return profile ? sendJson(response, 200, profile) : sendJson(response, 401, { error: 'invalid_token' })
    }
    sendJson(response, 404, { error: 'not_found' })
  })

  const url = server.url
  return Object.assign(fake, {
    url,
    env: {
      GOOGLE_CLIENT_ID: fake.clientId,
      GOOGLE_CLIENT_SECRET: fake.clientSecret,
      GOOGLE_AUTHORIZATION_URL: `${url}/authorize`,
      GOOGLE_TOKEN_URL: `${url}/token`,
      GOOGLE_USERINFO_URL: `${url}/userinfo`,
    },
    close: () => server.close(),
  })
}
