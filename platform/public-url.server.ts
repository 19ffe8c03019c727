import type { Env } from './env.server.ts'

/** PUBLIC_URL is https: HSTS, upgrade-insecure-requests and the reporting endpoint apply. */
export const isHttps = (env: Pick<Env, 'PUBLIC_URL'>) => Boolean(env.PUBLIC_URL?.startsWith('https:'))

/** Cookies are sent over https only, in production or wherever the site is served over https. */
export const usesSecureCookies = (env: Pick<Env, 'NODE_ENV' | 'PUBLIC_URL'>) =>
  env.NODE_ENV === 'production' || isHttps(env)

/** The site's origin where no request names it (emails, the start-up line): PUBLIC_URL, else this machine. */
export const publicOrigin = (env: Pick<Env, 'PUBLIC_URL' | 'PORT'>) =>
  (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, '')

/** The site's origin as a request sees it: PUBLIC_URL when set, else the origin the request came to. */
export const requestOrigin = (request: Request, env: Pick<Env, 'PUBLIC_URL'>) =>
  (env.PUBLIC_URL ?? new URL(request.url).origin).replace(/\/$/, '')
