import { createHmac, timingSafeEqual } from 'node:crypto'
import type { DB } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { publicOrigin } from '#platform/public-url.server.ts'

/**
 * The print file the lab downloads (issue 39, item 5): `/print-files/<order id>?expires=…&signature=…`
 * (an HMAC-SHA256 under SESSION_SECRET, as payment screenshots are signed), valid 14 days because
 * labs download again for days after an order. Stored under `prints/files/` and served only here.
 */

const PURPOSE = 'print-file'
const PRINT_FILE_DAYS = 14
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Where print files are stored (`prints/files/<order id>.jpg`). */
export const printFileKey = (orderId: string) => `prints/files/${orderId.toLowerCase()}.jpg`

/** Keys /media must not serve: print files go out only through their signed URL. */
export const isPrintFileKey = (key: string) => key.startsWith('prints/files/')

function signature(orderId: string, expires: number) {
  return createHmac('sha256', getEnv().SESSION_SECRET).update(`${PURPOSE}:${orderId}:${expires}`).digest('base64url')
}

/** The absolute URL the lab is given for the order's print file. */
export function signedPrintFileUrl(orderId: string, now = Date.now()) {
  const expires = Math.floor(now / 1000) + PRINT_FILE_DAYS * 86_400
  return `${publicOrigin(getEnv())}/print-files/${orderId}?expires=${expires}&signature=${signature(orderId, expires)}`
}

export type PrintFileAccess = { status: 403 | 404 } | { status: 200; key: string }

/** 403 for a wrong or expired signature, 404 for an order without a print file. */
export async function printFileAccess(db: DB, orderId: string, url: URL, now = Date.now()): Promise<PrintFileAccess> {
  const expiresText = url.searchParams.get('expires') ?? ''
  const expires = /^\d{1,12}$/.test(expiresText) ? Number(expiresText) : 0
  if (expires <= now / 1000 || !uuidPattern.test(orderId)) return { status: 403 }
  const expected = Buffer.from(signature(orderId, expires))
  const given = Buffer.from(url.searchParams.get('signature') ?? '')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { status: 403 }
  const order = await db
    .selectFrom('print_orders')
    .select('print_file_key')
    .where('id', '=', orderId)
    .executeTakeFirst()
  return order?.print_file_key ? { status: 200, key: order.print_file_key } : { status: 404 }
}
