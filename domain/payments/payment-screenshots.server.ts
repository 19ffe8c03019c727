import { createHmac, timingSafeEqual } from 'node:crypto'
import type { DB } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'

/**
 * A bank-transfer screenshot shows a customer's name and account, so it is never a public
 * capability URL (decision 0027). /media does not serve its key; the proof's `screenshotUrl` is
 * `/payment-screenshots/<proof id>?expires=<unix seconds>&signature=<HMAC-SHA256 under
 * SESSION_SECRET>`, valid for 10 to 15 minutes, handed out only where the owner or a super
 * administrator reads the proof, and answered `Cache-Control: private`. The expiry is rounded up
 * to a 5-minute step, so a page loaded twice within a few minutes reuses the browser's copy.
 * Deleting the account clears the proof's key, so a URL given out before answers 404.
 */

/** Where payment screenshots are stored (keys `payments/YYYY/MM/<sha256>.jpg`). */
export const SCREENSHOT_PREFIX = 'payments'

const PURPOSE = 'payment-screenshot'
const LIFETIME_SECONDS = 10 * 60
const STEP_SECONDS = 5 * 60

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Keys /media must not serve: payment screenshots go only through their signed URL. */
export const isScreenshotKey = (key: string) => key.startsWith(`${SCREENSHOT_PREFIX}/`)

function signature(proofId: string, expires: number) {
  return createHmac('sha256', getEnv().SESSION_SECRET).update(`${PURPOSE}:${proofId}:${expires}`).digest('base64url')
}

/** A short-lived URL of the proof's screenshot; only for its owner and super administrators. */
export function signedScreenshotUrl(proofId: string, now = Date.now()) {
  const expires = Math.ceil((now / 1000 + LIFETIME_SECONDS) / STEP_SECONDS) * STEP_SECONDS
  return `/payment-screenshots/${proofId}?expires=${expires}&signature=${signature(proofId, expires)}`
}

export type ScreenshotAccess =
  | { status: 403 | 404 }
  | { status: 200; key: string; /** Seconds until the URL expires: how long a browser may keep it. */ maxAge: number }

/**
 * What a request for a signed screenshot URL gets: 403 when the signature is wrong or expired,
 * 404 when the proof has no screenshot (never had one, or its account was deleted).
 */
export async function screenshotAccess(db: DB, proofId: string, url: URL, now = Date.now()): Promise<ScreenshotAccess> {
  const expiresText = url.searchParams.get('expires') ?? ''
  const expires = /^\d{1,12}$/.test(expiresText) ? Number(expiresText) : 0
  const maxAge = Math.floor(expires - now / 1000)
  if (maxAge <= 0 || !uuidPattern.test(proofId)) return { status: 403 }
  const expected = Buffer.from(signature(proofId, expires))
  const given = Buffer.from(url.searchParams.get('signature') ?? '')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { status: 403 }

  const proof = await db
    .selectFrom('payment_proofs')
    .select('screenshot_key')
    .where('id', '=', proofId)
    .executeTakeFirst()
  return proof?.screenshot_key ? { status: 200, key: proof.screenshot_key, maxAge } : { status: 404 }
}
