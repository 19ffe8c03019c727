import type { RateLimit } from '#domain/limits/rate-limit.server.ts'

/**
 * How often one IP or one account may try each step of signing in (spec 6: per IP and per account).
 * The per-account limits of guesses are kept per account *and* address: a stranger's wrong guesses
 * use up their own allowance, never the owner's (issue 14). `ip` is the address the web server
 * resolved (client-address.server.ts), never a header a client chose.
 */

const minutes = (count: number) => count * 60
const account = (email: string) => email.trim().toLowerCase()

/** Failed logins only, so that people who type their password right are never slowed down. */
export const loginFailureLimits = (ip: string, email: string): RateLimit[] => [
  { key: `login:ip:${ip}`, limit: 30, windowSeconds: minutes(15) },
  { key: `login:account:${account(email)}:ip:${ip}`, limit: 10, windowSeconds: minutes(15) },
]

/** Every code sent: one a minute per address (the form's resend countdown), a few an hour. */
export const sendCodeLimits = (ip: string, email: string, purpose: string): RateLimit[] => [
  { key: `send-code:ip:${ip}`, limit: 20, windowSeconds: minutes(60) },
  { key: `send-code:${purpose}:minute:${account(email)}`, limit: 1, windowSeconds: minutes(1) },
  { key: `send-code:${purpose}:hour:${account(email)}`, limit: 5, windowSeconds: minutes(60) },
]

/** Every code checked, on top of each code's own limit of wrong tries. */
export const checkCodeLimits = (ip: string, email: string): RateLimit[] => [
  { key: `check-code:ip:${ip}`, limit: 30, windowSeconds: minutes(15) },
  { key: `check-code:account:${account(email)}:ip:${ip}`, limit: 10, windowSeconds: minutes(15) },
]

/** New accounts from one address an hour (each comes with the new-user bonus): counted when one is created. */
export const registrationLimits = (ip: string, perHour: number): RateLimit[] => [
  { key: `register:ip:${ip}`, limit: perHour, windowSeconds: minutes(60) },
]
