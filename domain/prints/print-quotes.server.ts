import type { Selectable } from 'kysely'
import { z } from 'zod'
import type { PrintQuotesTable } from '#platform/db-schema.ts'
import type { DB } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { getLogger } from '#platform/logger.server.ts'
import { getMediaBytes, getStorage, mediaKey } from '#platform/storage.server.ts'
import { HttpError, notFound } from '#domain/http-error.server.ts'
import { getSystemConfig } from '#domain/credits/system-config.server.ts'
import { isTaskId } from '#domain/generation/own-task.server.ts'
import { guardLab, LabRefusal, printLab, requirePrintLab } from './print-lab.server.ts'
import { findVariant, labProduct, listCuratedProducts } from './print-catalogue.server.ts'
import { fillsPrintArea, orientedArea } from './print-geometry.ts'
import { renderMockup } from './print-images.server.ts'
import { parseInput } from './print-input.ts'
import { areaOf, MAKE_IT_BIGGER } from './print-options.server.ts'
import { creditsFor, DELIVERY_ESTIMATES, SHIPPING_METHODS } from './print-pricing.ts'
import { printableVersion, versionIndexSchema } from './printable-version.server.ts'

/**
 * A price for one print of one version (issue 39, item 3): checked against the curated catalogue
 * and the lab's product data (the choice, the country, the pixels: 422 naming the field), priced
 * by the lab's quote, drawn as a mockup, and kept 30 minutes: an order placed within them is
 * charged this price.
 */

const QUOTE_MINUTES = 30
const unit = (value: number) =>
  z.coerce.number().min(0, 'crop must be from 0 to 1').max(1, 'crop must be from 0 to 1').catch(value)

const quoteRequestSchema = z.object({
  taskId: z.string({ required_error: 'taskId is required' }),
  index: versionIndexSchema,
  sku: z
    .string({ required_error: 'Choose a product', invalid_type_error: 'sku must be text' })
    .trim()
    .toUpperCase()
    .min(1, 'Choose a product')
    .max(80, 'Unknown product'),
  attributes: z.record(z.string({ invalid_type_error: 'attribute values must be text' })).default({}),
  copies: z.coerce
    .number({ invalid_type_error: 'copies must be a number' })
    .int('copies must be a whole number')
    .min(1, 'copies must be at least 1')
    .max(10, 'copies must be at most 10')
    .default(1),
  countryCode: z
    .string({ required_error: 'Choose a country' })
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{2}$/, 'Choose a country (a two-letter code such as GB)'),
  shippingMethod: z.enum(SHIPPING_METHODS, {
    errorMap: () => ({ message: `shippingMethod must be one of ${SHIPPING_METHODS.join(', ')}` }),
  }),
  crop: z.object({ x: unit(0.5), y: unit(0.5) }).default({ x: 0.5, y: 0.5 }),
})

const refused = (message: string, field: string, code?: string) => new HttpError(422, message, { field, code })

export async function createQuote(db: DB, userId: string, body: unknown) {
  const config = requirePrintLab()
  const input = parseInput(quoteRequestSchema, body)
  const version = await printableVersion(db, userId, input.taskId, input.index)
  const product = (await listCuratedProducts(db)).find((p) => p.sku === input.sku)
  if (!product) throw refused('Unknown product: choose one of the sizes offered', 'sku')

  const chosen: Record<string, string> = {}
  for (const [name, value] of Object.entries(input.attributes)) {
    if (name !== product.attribute) throw refused(`${product.label} has no option “${name}”`, `attributes.${name}`)
    if (!product.choices.includes(value)) {
      throw refused(`${product.label} comes with ${product.choices.join(', ')}`, `attributes.${name}`)
    }
    chosen[name] = value
  }
  if (product.attribute && !chosen[product.attribute]) {
    const what = product.attribute === 'wrap' ? 'a wrap' : 'a frame colour'
    throw refused(`Choose ${what}: ${product.choices.join(', ')}`, `attributes.${product.attribute}`)
  }

  const lab = printLab(db, config)
  const labData = await guardLab(() => labProduct(db, lab, product.sku))
  const variant = labData && findVariant(labData, chosen)
  if (!variant) throw refused(`${product.label} is not available from the print lab just now`, 'sku')
  if (!variant.shipsTo.includes(input.countryCode)) {
    throw refused(`${product.label} does not ship to ${input.countryCode}`, 'countryCode')
  }
  const area = orientedArea(version.size, areaOf(variant))
  if (!fillsPrintArea(version.size, areaOf(variant))) {
    throw refused(
      `${MAKE_IT_BIGGER}: ${product.label} needs ${area.width}×${area.height} pixels, the portrait has ${version.size.width}×${version.size.height}`,
      'sku',
      'make_it_bigger',
    )
  }

  const cost = await guardLab(() =>
    lab
      .quote({
        sku: product.sku,
        copies: input.copies,
        attributes: chosen,
        countryCode: input.countryCode,
        shippingMethod: input.shippingMethod,
      })
      .catch((error: unknown) => {
        if (error instanceof LabRefusal) throw labRefusalAsInput(error)
        throw error
      }),
  )
  const markup = (await getSystemConfig(db)).printMarkup
  const credits = creditsFor(cost, markup, getEnv().PRINT_USD_RATES)
  if (credits === null) {
    getLogger().error({ currency: cost.items.currency }, 'print quote in a currency PRINT_USD_RATES does not list')
    throw new HttpError(503, 'Prints cannot be priced just now. Please try again later.', {
      headers: { 'Retry-After': '300' },
    })
  }

  const source = await getMediaBytes(getStorage(), version.key)
  if (!source) throw new HttpError(409, 'This portrait has expired and can no longer be printed', { field: 'taskId' })
  const face = orientedArea(version.size, { width: product.widthIn, height: product.heightIn })
  const mockup = await renderMockup(source, {
    kind: product.kind,
    choice: chosen[product.attribute ?? ''] ?? null,
    area,
    face,
    crop: input.crop,
  })
  const mockupKey = mediaKey('prints/mockups', mockup, 'jpg')
  await getStorage().put(mockupKey, mockup, 'image/jpeg')

  const quote = await db
    .insertInto('print_quotes')
    .values({
      user_id: userId,
      task_id: version.taskId,
      version_index: version.index,
      sku: product.sku,
      attributes: JSON.stringify(chosen),
      copies: input.copies,
      country_code: input.countryCode,
      shipping_method: input.shippingMethod,
      crop_x: input.crop.x,
      crop_y: input.crop.y,
      print_width: area.width,
      print_height: area.height,
      items_cost: cost.items.amount,
      shipping_cost: cost.shipping.amount,
      currency: cost.items.currency,
      credits,
      delivery: DELIVERY_ESTIMATES[input.shippingMethod],
      mockup_key: mockupKey,
      expires_at: new Date(Date.now() + QUOTE_MINUTES * 60_000),
    })
    .returningAll()
    .executeTakeFirstOrThrow()
  return quoteView(quote, product.label)
}

/** A quote as the API answers it and the order page shows it. */
function quoteView(quote: Selectable<PrintQuotesTable>, label: string) {
  return {
    quoteId: quote.id,
    credits: quote.credits,
    cost: { items: quote.items_cost, shipping: quote.shipping_cost, currency: quote.currency },
    delivery: quote.delivery,
    expiresAt: quote.expires_at.toISOString(),
    mockupUrl: `/api/prints/mockup?quoteId=${quote.id}`,
    product: { sku: quote.sku, label, attributes: quote.attributes },
    copies: quote.copies,
    shippingMethod: quote.shipping_method,
    countryCode: quote.country_code,
    crop: { x: quote.crop_x, y: quote.crop_y },
    taskId: quote.task_id,
    index: quote.version_index,
  }
}

/** The user's own quote as the order page shows it, or null when it is gone (used or another user's). */
export async function findQuoteView(db: DB, userId: string, quoteId: string) {
  const quote = await ownQuote(db, userId, quoteId).catch(() => null)
  if (!quote) return null
  const product = (await listCuratedProducts(db, { offeredOnly: false })).find((p) => p.sku === quote.sku)
  return quoteView(quote, product?.label ?? quote.sku)
}

/** The lab refusing a quote or an order we checked: its first failure, under our field's name. */
function labRefusalAsInput(error: LabRefusal) {
  const [path, failures] = Object.entries(error.failures)[0] ?? ['', []]
  const field = /sku/i.test(path)
    ? 'sku'
    : /attributes/i.test(path)
      ? 'attributes'
      : /countryCode/i.test(path)
        ? 'countryCode'
        : /copies/i.test(path)
          ? 'copies'
          : path.replace(/^recipient\./, 'recipient.')
  const code = failures?.[0]?.code ?? error.outcome
  return new HttpError(422, `The print lab refused this ${field || 'request'} (${code})`, field ? { field } : {})
}

/** The user's own quote (any age), or 404. */
export async function ownQuote(db: DB, userId: string, quoteId: string) {
  const quote = isTaskId(quoteId)
    ? await db
        .selectFrom('print_quotes')
        .selectAll()
        .where('id', '=', quoteId)
        .where('user_id', '=', userId)
        .executeTakeFirst()
    : undefined
  if (!quote) throw notFound('Quote not found')
  return quote
}

/** The stored mockup of the user's own quote. */
export async function quoteMockup(db: DB, userId: string, quoteId: string) {
  const quote = await ownQuote(db, userId, quoteId)
  return quote.mockup_key
}
