import { timingSafeEqual } from 'node:crypto'
import type { DB } from '#platform/db.server.ts'
import { enqueueJob } from '#platform/jobs.server.ts'
import { notFound } from '#domain/http-error.server.ts'
import { printLabConfig } from './print-lab.server.ts'

/**
 * The lab's callbacks (CloudEvents; issue 39, item 6). No signature is documented, so the secret
 * is in the URL and the body is only a hint: its `subject` names the lab's order, and a job re-reads
 * that order from the lab. A forged, replayed or out-of-order event can therefore change nothing
 * the lab does not say itself. Answered at once; any other secret is a 404.
 */
export async function receiveLabCallback(db: DB, secret: string, event: unknown) {
  const expected = printLabConfig()?.callbackSecret
  if (!expected || !sameSecret(secret, expected)) throw notFound()
  const subject = event && typeof event === 'object' ? (event as Record<string, unknown>).subject : undefined
  if (typeof subject !== 'string' || subject.length > 100) return { queued: false }
  const order = await db.selectFrom('print_orders').select('id').where('lab_order_id', '=', subject).executeTakeFirst()
  if (!order) return { queued: false }
  await enqueueJob(db, 'sync_print_order', { orderId: order.id }, { jobKey: `print-sync:${order.id}` })
  return { queued: true }
}

function sameSecret(given: string, expected: string) {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}
