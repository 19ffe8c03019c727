import type { Env } from './env.server.ts'

/** PUBLIC_URL is https: HSTS, upgrade-insecure-requests and the reporting endpoint apply. */
export const isHttps = (env: Pick<Env, 'PUBLIC_URL'>) => Boolean(env.PUBLIC_URL?.startsWith('https:'))

/** Cookies are sent over https only, in production or wherever the site is served over https. */
export const usesSecureCookies = (env: Pick<Env, 'NODE_ENV' | 'PUBLIC_URL'>) =>
  env.NODE_ENV === 'production' || isHttps(env)

/**
 * The site's origin in every absolute URL it gives out (emails, robots.txt, the sitemap, the OAuth
 * callback, the start-up line): PUBLIC_URL, which production requires, else the address this
 * machine listens on. Never a request's Host or X-Forwarded-Host (decision 0025).
 */
export const publicOrigin = (env: Pick<Env, 'PUBLIC_URL' | 'PORT'>) =>
  (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, '')
