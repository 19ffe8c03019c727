import { z } from 'zod'
import type { Selectable } from 'kysely'
import type { PrintOrderStatus, PrintOrdersTable } from '#platform/db-schema.ts'
import type { DB } from '#platform/db.server.ts'
import { enqueueJob } from '#platform/jobs.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { HttpError, notFound } from '#domain/http-error.server.ts'
import { spendCredits } from '#domain/credits/credits.server.ts'
import { isTaskId } from '#domain/generation/own-task.server.ts'
import { refuseBeyondOpenPrintOrders } from '#domain/limits/print-order-limit.server.ts'
import { mediaUrl } from '#domain/media/media-url.ts'
import { listCuratedProducts } from './print-catalogue.server.ts'
import { parseInput } from './print-input.ts'
import { guardLab, printLab, requirePrintLab } from './print-lab.server.ts'
import { refundPrintOrder } from './print-refunds.server.ts'
import { printableVersion } from './printable-version.server.ts'
import { ownQuote } from './print-quotes.server.ts'

/**
 * A user's print orders (issue 39, items 5 to 7): placing one from a quote (one transaction: the
 * quote used up, the order row, the debit naming it, the submission job; nothing is written when
 * any step refuses), reading them, and cancelling one while the lab allows it (refunded once).
 */

const text = (label: string, max: number) =>
  z
    .string({ required_error: `${label} is required`, invalid_type_error: `${label} must be text` })
    .trim()
    .min(1, `${label} is required`)
    .max(max, `${label} is too long (at most ${max} characters)`)
const optionalText = (label: string, max: number) =>
  z.preprocess((value) => (value === '' || value === null ? undefined : value), text(label, max).optional())

export const recipientSchema = z.object({
  name: text('Recipient name', 100),
  email: z
    .string({ required_error: 'Email is required (couriers need it)' })
    .trim()
    .email('Enter a valid email address')
    .max(200),
  phone: optionalText('Phone', 40),
  address: z.object(
    {
      line1: text('Address line 1', 120),
      line2: optionalText('Address line 2', 120),
      townOrCity: text('Town or city', 80),
      stateOrCounty: optionalText('State or county', 80),
      postalOrZipCode: text('Postcode', 20),
      countryCode: z
        .string({ required_error: 'Country is required' })
        .trim()
        .toUpperCase()
        .regex(/^[A-Z]{2}$/, 'Choose a country'),
    },
    { required_error: 'Address is required' },
  ),
})

export type Recipient = z.infer<typeof recipientSchema>

const orderRequestSchema = z.object({
  quoteId: z.string({ required_error: 'quoteId is required' }),
  recipient: recipientSchema,
})

export async function placeOrder(db: DB, userId: string, body: unknown) {
  requirePrintLab()
  const input = parseInput(orderRequestSchema, body)
  const quote = await ownQuote(db, userId, input.quoteId)
  if (quote.expires_at.getTime() <= Date.now()) {
    throw new HttpError(409, 'This price has expired: please get a new price', { field: 'quoteId' })
  }
  if (input.recipient.address.countryCode !== quote.country_code) {
    throw new HttpError(
      422,
      `The price was for delivery to ${quote.country_code}: get a new price for ${input.recipient.address.countryCode}`,
      { field: 'recipient.address.countryCode' },
    )
  }
  const version = await printableVersion(db, userId, quote.task_id, quote.version_index)
  const product = (await listCuratedProducts(db)).find((p) => p.sku === quote.sku)
  if (!product) throw new HttpError(422, 'This product is no longer offered', { field: 'sku' })

  const order = await db.transaction().execute(async (tx) => {
    // A quote makes one order: a second submission of the same form finds it used.
    const used = await tx.deleteFrom('print_quotes').where('id', '=', quote.id).executeTakeFirst()
    if (used.numDeletedRows === 0n) {
      throw new HttpError(409, 'This price was already used for an order', { field: 'quoteId' })
    }
    const row = await tx
      .insertInto('print_orders')
      .values({
        user_id: userId,
        task_id: quote.task_id,
        version_index: quote.version_index,
        product_label: product.label,
        sku: quote.sku,
        attributes: JSON.stringify(quote.attributes),
        copies: quote.copies,
        shipping_method: quote.shipping_method,
        crop_x: quote.crop_x,
        crop_y: quote.crop_y,
        print_width: quote.print_width,
        print_height: quote.print_height,
        credits: quote.credits,
        items_cost: quote.items_cost,
        shipping_cost: quote.shipping_cost,
        currency: quote.currency,
        delivery: quote.delivery,
        country_code: quote.country_code,
        recipient: JSON.stringify(input.recipient),
        source_key: version.key,
        mockup_key: quote.mockup_key,
      })
      .returning(['id', 'status', 'credits'])
      .executeTakeFirstOrThrow()
    const copies = quote.copies > 1 ? ` ×${quote.copies}` : ''
    const paid = await spendCredits(tx, {
      userId,
      cost: quote.credits,
      description: `Print order: ${product.label}${copies}`,
      printOrderId: row.id,
    })
    if (!paid) {
      throw new HttpError(402, `You need at least ${quote.credits} credits for this print`, {
        extra: { needPurchase: true },
      })
    }
    await refuseBeyondOpenPrintOrders(tx, userId)
    await enqueueJob(tx, 'submit_print_order', { orderId: row.id }, { jobKey: `print-order:${row.id}` })
    return row
  })
  getMetrics().printOrders.inc({ status: 'submitted' })
  return { id: order.id, status: order.status, credits: order.credits }
}

type OrderRow = Selectable<PrintOrdersTable>

const orderRows = (db: DB) => db.selectFrom('print_orders').selectAll()

/** An order as the API and the pages show it to its owner. */
function orderView(row: OrderRow) {
  return {
    id: row.id,
    status: row.status,
    statusText: STATUS_TEXT[row.status],
    labStage: row.lab_stage,
    product: { sku: row.sku, label: row.product_label, attributes: row.attributes },
    copies: row.copies,
    shippingMethod: row.shipping_method,
    delivery: row.delivery,
    credits: row.credits,
    countryCode: row.country_code,
    mockupUrl: mediaUrl(row.mockup_key),
    shipments: row.shipments,
    problem: row.problem,
    refunded: row.refunded_at !== null,
    taskId: row.task_id,
    index: row.version_index,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

const STATUS_TEXT: Record<PrintOrderStatus, string> = {
  submitted: 'Paid, being sent to the print lab',
  at_lab: 'At the print lab',
  in_production: 'Being made',
  shipped: 'Shipped',
  complete: 'Delivered to the carrier',
  cancelled: 'Cancelled',
  refused: 'Refused by the print lab',
  submission_failed: 'Delayed: the print lab could not be reached',
}

export async function listOrders(db: DB, userId: string) {
  const rows = await orderRows(db).where('user_id', '=', userId).orderBy('created_at', 'desc').limit(100).execute()
  return rows.map(orderView)
}

async function ownOrder(db: DB, userId: string, orderId: string) {
  const row = isTaskId(orderId)
    ? await orderRows(db).where('id', '=', orderId).where('user_id', '=', userId).executeTakeFirst()
    : undefined
  if (!row) throw notFound('Order not found')
  return row
}

export async function getOrder(db: DB, userId: string, orderId: string) {
  return orderView(await ownOrder(db, userId, orderId))
}

const CANCELLED_BY_USER = 'You cancelled this order'

/**
 * Cancels the user's order: one not yet at the lab is stopped here (the submission job finds it
 * cancelled); one at the lab only while the lab's actions allow it. Refunded once either way.
 */
export async function cancelOrder(db: DB, userId: string, orderId: string) {
  const order = await ownOrder(db, userId, orderId)
  if (order.status === 'submitted' && order.lab_order_id === null) {
    const cancelled = await db.transaction().execute(async (tx) => {
      const stopped = await tx
        .updateTable('print_orders')
        .set({ status: 'cancelled', problem: CANCELLED_BY_USER, updated_at: new Date() })
        .where('id', '=', order.id)
        .where('status', '=', 'submitted')
        .where('lab_order_id', 'is', null)
        .executeTakeFirst()
      if (stopped.numUpdatedRows === 0n) return false
      await refundPrintOrder(tx, order.id, CANCELLED_BY_USER)
      return true
    })
    if (cancelled) {
      getMetrics().printOrders.inc({ status: 'cancelled' })
      return getOrder(db, userId, orderId)
    }
    return cancelOrder(db, userId, orderId)
  }
  if (!order.lab_order_id || !['at_lab', 'in_production', 'submission_failed'].includes(order.status)) {
    throw new HttpError(409, `This order can no longer be cancelled (${STATUS_TEXT[order.status].toLowerCase()})`)
  }
  const lab = printLab(db, requirePrintLab())
  const labOrderId = order.lab_order_id
  const done = await guardLab(async () => (await lab.canCancel(labOrderId)) && (await lab.cancel(labOrderId)))
  if (!done) throw new HttpError(409, 'The print lab has started making this order: it can no longer be cancelled')
  await db.transaction().execute(async (tx) => {
    const changed = await tx
      .updateTable('print_orders')
      .set({ status: 'cancelled', lab_stage: 'Cancelled', problem: CANCELLED_BY_USER, updated_at: new Date() })
      .where('id', '=', order.id)
      .where('status', '!=', 'cancelled')
      .executeTakeFirst()
    if (changed.numUpdatedRows > 0n) await refundPrintOrder(tx, order.id, CANCELLED_BY_USER)
  })
  getMetrics().printOrders.inc({ status: 'cancelled' })
  return getOrder(db, userId, orderId)
}

/** Every order, newest first, for /print-orders (superadmins): with the customer's email and the lab's side. */
export async function listAllOrders(db: DB, limit = 200) {
  const rows = await db
    .selectFrom('print_orders')
    .leftJoin('users', 'users.id', 'print_orders.user_id')
    .selectAll('print_orders')
    .select('users.email')
    .orderBy('print_orders.created_at', 'desc')
    .limit(limit)
    .execute()
  return rows.map((row) => ({
    ...orderView(row),
    email: row.email,
    labOrderId: row.lab_order_id,
    issues: row.lab_issues,
    lastError: row.last_error,
  }))
}
