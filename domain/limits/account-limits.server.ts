import { clientLimitKey, siteLimitKey } from '#domain/limits/client-key.ts'
import { mailboxKey } from '#domain/limits/mailbox-key.ts'
import { rateLimit, type RateLimit } from '#domain/limits/rate-limit.server.ts'

/**
 * How often one client or one account may try each step of signing in (spec 6: per IP and per account).
 * The per-account limits of guesses are kept per account *and* client: a stranger's wrong guesses
 * use up their own allowance, never the owner's (issue 14); the growing delay per account across
 * every client is login-delay.server.ts. `ip` is the address the web server resolved
 * (client-address.server.ts), never a header a client chose; every limit here counts its client
 * limit key (an IPv4 address or an IPv6 /64, client-key.ts), and limits on emails sent count the
 * mailbox (mailbox-key.ts). docs/limits.md lists them all.
 */

const minutes = (count: number) => count * 60
/** The account a limit counts: the email as typed, lowercased (as findUserByEmail reads it). */
export const accountKey = (email: string) => email.trim().toLowerCase()

/** Failed logins only, so that people who type their password right are never slowed down. */
export const loginFailureLimits = (ip: string, email: string): RateLimit[] => [
  rateLimit('login:ip', clientLimitKey(ip), 30, minutes(15)),
  rateLimit('login:account-ip', `${accountKey(email)}:${clientLimitKey(ip)}`, 10, minutes(15)),
]

/** Every code sent: one a minute per mailbox (the form's resend countdown), a few an hour. */
export const sendCodeLimits = (ip: string, email: string, purpose: string): RateLimit[] => [
  rateLimit('send-code:ip', clientLimitKey(ip), 20, minutes(60)),
  rateLimit(`send-code:${purpose}:minute`, mailboxKey(email), 1, minutes(1)),
  rateLimit(`send-code:${purpose}:hour`, mailboxKey(email), 5, minutes(60)),
]

/** Every code checked, on top of each code's own limit of wrong tries. */
export const checkCodeLimits = (ip: string, email: string): RateLimit[] => [
  rateLimit('check-code:ip', clientLimitKey(ip), 30, minutes(15)),
  rateLimit('check-code:account-ip', `${accountKey(email)}:${clientLimitKey(ip)}`, 10, minutes(15)),
]

/**
 * New accounts an hour (each comes with the new-user bonus), counted when one is created: per
 * client, and for IPv6 also per /48, the most one customer is usually given.
 */
export const registrationLimits = (ip: string, perClient: number, perSite: number): RateLimit[] => {
  const site = siteLimitKey(ip)
  return [
    rateLimit('register:ip', clientLimitKey(ip), perClient, minutes(60)),
    ...(site ? [rateLimit('register:ipv6-48', site, perSite, minutes(60))] : []),
  ]
}
