import { REFERRAL_COOKIE } from '#domain/sharing/referrals.server.ts'

/** The share page slug a visitor's browser remembers (set by /p/{slug}), or null. */
export function referralSlugFrom(request: Request): string | null {
  const cookies = request.headers.get('cookie') ?? ''
  for (const part of cookies.split(';')) {
    const [name, value] = part.trim().split('=')
    if (name === REFERRAL_COOKIE && value && /^[A-Za-z0-9_-]{22}$/.test(value)) return value
  }
  return null
}
