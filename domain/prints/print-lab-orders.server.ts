import type { PrintOrderStatus, PrintShipment } from '#platform/db-schema.ts'
import type { DB } from '#platform/db.server.ts'
import { queueEmail } from '#platform/email.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { enqueueJob } from '#platform/jobs.server.ts'
import { getLogger } from '#platform/logger.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { publicOrigin } from '#platform/public-url.server.ts'
import { getMediaBytes, getStorage } from '#platform/storage.server.ts'
import { OPEN_PRINT_STATUSES } from '#domain/limits/print-order-limit.server.ts'
import { LabRefusal, printLab, printLabConfig, type LabOrder, type PrintLab } from './print-lab.server.ts'
import { printFileKey, signedPrintFileUrl } from './print-files.server.ts'
import { renderPrintFile } from './print-images.server.ts'
import type { Recipient } from './print-orders.server.ts'
import { refundPrintOrder } from './print-refunds.server.ts'

/**
 * The worker's side of a print order (issue 39, items 5 to 8): sending it to the lab (the print
 * file rendered once and stored, `POST /orders` keyed by our order id, so a retry after a lost
 * answer gets `AlreadyExists` and one order), and following it by re-reading the lab's order
 * (after a callback, and in a sweep): stages and shipments, the one shipping email, and refunds
 * once, with the reason in words, of what the lab refuses.
 */

type OrderRow = NonNullable<Awaited<ReturnType<typeof findOrder>>>

const findOrder = (db: DB, orderId: string) =>
  db.selectFrom('print_orders').selectAll().where('id', '=', orderId).executeTakeFirst()

function labOrNull(db: DB) {
  const config = printLabConfig()
  return config ? printLab(db, config) : null
}

/** Why a lab's issue stops an order, in words for the customer (null: the lab goes on trying). */
const STOPPING_ISSUES: Record<string, string> = {
  'order.items.assets.FailedToDownloaded': 'The print lab could not download the picture to print',
  'order.items.ItemUnavailable': 'The print lab cannot make this product just now',
  RequiresPaymentAuthorisation: 'The print lab’s account needs attention on our side, so we refunded you',
}
/** Issues that are ours to fix at the lab, not the customer's: the owner is told. */
const ACCOUNT_ISSUES = new Set(['RequiresPaymentAuthorisation'])

const issueKey = (code: string) =>
  Object.keys(STOPPING_ISSUES).find((key) => code.toLowerCase().endsWith(key.toLowerCase()))

/**
 * Sends a paid order to the lab. Answers what happened, for the job's log; throws to be tried
 * again (the lab away): the job's last attempt marks it submission_failed for an operator.
 */
export async function submitPrintOrder(db: DB, orderId: string, { lastAttempt }: { lastAttempt: boolean }) {
  const lab = labOrNull(db)
  let order = await findOrder(db, orderId)
  if (!order) return 'no such order'
  if (order.status !== 'submitted' && order.status !== 'submission_failed') return `already ${order.status}`
  if (!lab) throw new Error('PRODIGI_API_KEY is not set: the order waits for the lab to be configured')
  if (!order.recipient) {
    await markStopped(db, order, 'cancelled', 'The account was deleted before the order was sent')
    return 'account deleted: cancelled'
  }
  if (!order.print_file_key) {
    const source = order.source_key ? await getMediaBytes(getStorage(), order.source_key) : null
    if (!source) {
      await refuseOrder(db, order, 'The portrait’s file is no longer stored, so it could not be printed')
      return 'source gone: refused and refunded'
    }
    const area = { width: order.print_width, height: order.print_height }
    const file = await renderPrintFile(source, { area, crop: { x: order.crop_x, y: order.crop_y } })
    const key = printFileKey(order.id)
    await getStorage().put(key, file.bytes, 'image/jpeg')
    order = await db
      .updateTable('print_orders')
      .set({ print_file_key: key, print_file_md5: file.md5, updated_at: new Date() })
      .where('id', '=', order.id)
      .returningAll()
      .executeTakeFirstOrThrow()
  }

  let answer: Awaited<ReturnType<PrintLab['createOrder']>>
  try {
    answer = await lab.createOrder(labOrderRequest(order, lab.config.callbackSecret))
  } catch (error) {
    if (error instanceof LabRefusal && error.status < 500) {
      const first = Object.entries(error.failures)[0]
      const detail = first ? `${first[0]}: ${first[1].map((f) => f.code).join(', ')}` : error.outcome
      await refuseOrder(db, order, `The print lab refused the order (${detail})`)
      return `refused by the lab: ${error.message}`
    }
    const message = error instanceof Error ? error.message : String(error)
    await db
      .updateTable('print_orders')
      .set({ last_error: message, updated_at: new Date() })
      .where('id', '=', order.id)
      .execute()
    if (lastAttempt) {
      await db
        .updateTable('print_orders')
        .set({ status: 'submission_failed', updated_at: new Date() })
        .where('id', '=', order.id)
        .where('status', '=', 'submitted')
        .execute()
      getMetrics().printOrders.inc({ status: 'submission_failed' })
    }
    throw error
  }

  const sent = await db
    .updateTable('print_orders')
    .set({
      status: 'at_lab',
      lab_order_id: answer.order.id,
      lab_stage: answer.order.status.stage,
      sent_at: new Date(),
      last_error: null,
      updated_at: new Date(),
    })
    .where('id', '=', order.id)
    .where('status', 'in', ['submitted', 'submission_failed'])
    .returningAll()
    .executeTakeFirst()
  if (!sent) {
    // Cancelled while it was being sent: the lab's copy goes too.
    await lab.cancel(answer.order.id).catch((error: unknown) => {
      getLogger().error({ err: error, orderId: order.id }, 'could not cancel at the lab an order cancelled meanwhile')
    })
    await db.updateTable('print_orders').set({ lab_order_id: answer.order.id }).where('id', '=', order.id).execute()
    return `cancelled meanwhile; lab order ${answer.order.id} cancelled`
  }
  getMetrics().printOrders.inc({ status: 'at_lab' })
  await applyLabOrder(db, lab, sent, answer.order)
  // The lab fetches the file as soon as it has answered: a callback that arrived before its
  // order's id was stored here named no order and was dropped, so the order is re-read once now.
  await enqueueJob(db, 'sync_print_order', { orderId: order.id }, { jobKey: `print-sync:${order.id}` })
  return `${answer.outcome}: lab order ${answer.order.id}`
}

function labOrderRequest(order: OrderRow, callbackSecret: string | null) {
  const recipient = order.recipient as unknown as Recipient
  const { address } = recipient
  const origin = publicOrigin(getEnv())
  return {
    merchantReference: order.id,
    idempotencyKey: order.id,
    ...(callbackSecret ? { callbackUrl: `${origin}/api/prints/callback/${callbackSecret}` } : {}),
    shippingMethod: order.shipping_method,
    recipient: {
      name: recipient.name,
      email: recipient.email,
      ...(recipient.phone ? { phoneNumber: recipient.phone } : {}),
      address: {
        line1: address.line1,
        ...(address.line2 ? { line2: address.line2 } : {}),
        postalOrZipCode: address.postalOrZipCode,
        countryCode: address.countryCode,
        townOrCity: address.townOrCity,
        ...(address.stateOrCounty ? { stateOrCounty: address.stateOrCounty } : {}),
      },
    },
    items: [
      {
        merchantReference: order.id,
        sku: order.sku,
        copies: order.copies,
        sizing: 'fillPrintArea' as const,
        attributes: order.attributes,
        assets: [{ printArea: 'default' as const, url: signedPrintFileUrl(order.id), md5Hash: order.print_file_md5! }],
      },
    ],
  }
}

/** Re-reads an order at the lab and takes its state (after a callback, in the sweep). */
export async function syncPrintOrder(db: DB, orderId: string) {
  const lab = labOrNull(db)
  const order = await findOrder(db, orderId)
  if (!lab || !order?.lab_order_id) return 'nothing to read'
  if (!OPEN_PRINT_STATUSES.includes(order.status as (typeof OPEN_PRINT_STATUSES)[number]))
    return `already ${order.status}`
  const labOrder = await lab.order(order.lab_order_id)
  return applyLabOrder(db, lab, order, labOrder)
}

const RANK: Record<PrintOrderStatus, number> = {
  submitted: 0,
  submission_failed: 0,
  at_lab: 1,
  in_production: 2,
  shipped: 3,
  complete: 4,
  cancelled: 5,
  refused: 5,
}

function statusOf(labOrder: LabOrder, shipments: PrintShipment[]): PrintOrderStatus {
  const stage = labOrder.status.stage.toLowerCase()
  if (stage === 'cancelled') return 'cancelled'
  if (stage === 'complete') return 'complete'
  if (shipments.some((s) => s.status.toLowerCase() === 'shipped')) return 'shipped'
  const details = labOrder.status.details
  const started =
    ['InProgress', 'Complete'].includes(details.inProduction ?? '') || details.allocateProductionLocation === 'Complete'
  return started ? 'in_production' : 'at_lab'
}

/**
 * Takes the lab's order as it is now. Only forward: a late or replayed read never moves an order
 * back, and a cancelled, refused or complete order stays so.
 */
async function applyLabOrder(db: DB, lab: PrintLab, order: OrderRow, labOrder: LabOrder) {
  const shipments: PrintShipment[] = labOrder.shipments.map((s) => ({
    status: s.status,
    carrier: s.carrier?.name ?? null,
    trackingNumber: s.tracking?.number ?? null,
    trackingUrl: s.tracking?.url ?? null,
    dispatchDate: s.dispatchDate ?? null,
  }))
  const issues = labOrder.status.issues.map((i) => ({ errorCode: i.errorCode, description: i.description }))
  const stopping = labOrder.status.stage === 'InProgress' ? issues.find((i) => issueKey(i.errorCode)) : undefined
  if (stopping) {
    const key = issueKey(stopping.errorCode)!
    await lab.cancel(labOrder.id).catch((error: unknown) => {
      getLogger().warn({ err: error, orderId: order.id }, 'the lab would not cancel an order it cannot make')
    })
    await db
      .updateTable('print_orders')
      .set({ lab_issues: JSON.stringify(issues), shipments: JSON.stringify(shipments) })
      .where('id', '=', order.id)
      .execute()
    await refuseOrder(db, order, STOPPING_ISSUES[key]!, ACCOUNT_ISSUES.has(key) ? stopping.description : null)
    return `refused: ${stopping.errorCode}`
  }

  const next = statusOf(labOrder, shipments)
  const status = RANK[next] >= RANK[order.status] && RANK[order.status] < 4 ? next : order.status
  const outcome = await db.transaction().execute(async (tx) => {
    const updated = await tx
      .updateTable('print_orders')
      .set({
        status,
        lab_stage: labOrder.status.stage,
        lab_issues: JSON.stringify(issues),
        shipments: JSON.stringify(shipments),
        synced_at: new Date(),
        updated_at: new Date(),
      })
      .where('id', '=', order.id)
      .where('status', '=', order.status)
      .returning(['status', 'user_id'])
      .executeTakeFirst()
    if (!updated) return 'changed meanwhile'
    if (status === 'cancelled' && order.status !== 'cancelled') {
      await refundPrintOrder(tx, order.id, 'The print lab cancelled the order')
    }
    const tracked = shipments.filter((s) => s.trackingUrl || s.trackingNumber)
    if ((status === 'shipped' || status === 'complete') && tracked.length > 0 && updated.user_id) {
      const claimed = await tx
        .updateTable('print_orders')
        .set({ shipped_email_at: new Date() })
        .where('id', '=', order.id)
        .where('shipped_email_at', 'is', null)
        .executeTakeFirst()
      if (claimed.numUpdatedRows > 0n) await queueShippedEmail(tx, updated.user_id, order, tracked)
    }
    return status
  })
  if (status !== order.status) getMetrics().printOrders.inc({ status })
  return outcome
}

async function queueShippedEmail(
  tx: Parameters<typeof queueEmail>[0],
  userId: string,
  order: OrderRow,
  tracked: PrintShipment[],
) {
  const user = await tx.selectFrom('users').select(['email', 'name']).where('id', '=', userId).executeTakeFirst()
  if (!user) return
  const origin = publicOrigin(getEnv())
  const lines = tracked.map((s) => `${s.carrier ?? 'Carrier'}: ${s.trackingNumber ?? ''} ${s.trackingUrl ?? ''}`.trim())
  // Transactional: sent whatever the user's setting for done emails.
  await queueEmail(tx, {
    to: user.email,
    subject: `Your ${order.product_label} is on its way`,
    text: [
      `Hello ${user.name},`,
      '',
      `Your ${order.product_label} has shipped.`,
      '',
      'Tracking:',
      ...lines,
      '',
      `Your orders: ${origin}/orders`,
    ].join('\n'),
  })
}

/** The lab will not make it: stopped, refunded once with the reason; an account-side problem emails the owner. */
async function refuseOrder(db: DB, order: OrderRow, reason: string, ownerDetail: string | null = null) {
  await markStopped(db, order, 'refused', reason)
  const owner = getEnv().OWNER_EMAIL
  if (ownerDetail !== null && owner) {
    await queueEmail(db, {
      to: owner,
      subject: 'Print lab: an order needs your lab account',
      text: `Order ${order.id} (lab order ${order.lab_order_id ?? 'none'}) was refunded: ${ownerDetail}`,
    })
  }
}

async function markStopped(db: DB, order: OrderRow, status: 'refused' | 'cancelled', reason: string) {
  const stopped = await db.transaction().execute(async (tx) => {
    const changed = await tx
      .updateTable('print_orders')
      .set({ status, problem: reason, updated_at: new Date() })
      .where('id', '=', order.id)
      .where('status', 'in', OPEN_PRINT_STATUSES)
      .executeTakeFirst()
    if (changed.numUpdatedRows === 0n) return false
    await refundPrintOrder(tx, order.id, reason)
    return true
  })
  if (stopped) getMetrics().printOrders.inc({ status })
}

/** Every few hours: a re-read of each open order at the lab, in case a callback was lost. */
export async function sweepPrintOrders(db: DB) {
  const open = await db
    .selectFrom('print_orders')
    .select('id')
    .where('status', 'in', ['at_lab', 'in_production', 'shipped'])
    .where('lab_order_id', 'is not', null)
    .execute()
  for (const { id } of open) await enqueueJob(db, 'sync_print_order', { orderId: id }, { jobKey: `print-sync:${id}` })
  await db
    .deleteFrom('print_quotes')
    .where('expires_at', '<', new Date(Date.now() - 60 * 60_000))
    .execute()
  return open.length
}

/** A superadmin's retry of a submission that ran out of attempts: same idempotency key, one order. */
export async function retrySubmission(db: DB, orderId: string) {
  const order = await findOrder(db, orderId)
  if (!order || order.status !== 'submission_failed') return false
  await enqueueJob(db, 'submit_print_order', { orderId }, { jobKey: `print-order:${orderId}` })
  return true
}
