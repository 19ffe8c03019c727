import { z } from 'zod'
import type { DB } from '#platform/db.server.ts'
import type { PrintKind } from '#platform/db-schema.ts'
import { HttpError } from '#domain/http-error.server.ts'
import type { LabProduct, PrintLab } from './print-lab.server.ts'

/**
 * The curated catalogue (print_products: each size a lab SKU, with the one choice offered on it:
 * a canvas's wrap or a frame's colour) and the lab's own data for each SKU, cached a day in
 * print_lab_products (the print area per variant and where it ships). A superadmin edits the
 * catalogue on /print-orders.
 */

const LAB_PRODUCT_TTL_MS = 24 * 60 * 60_000

export interface CuratedProduct {
  sku: string
  kind: PrintKind
  label: string
  widthIn: number
  heightIn: number
  /** The lab attribute the customer chooses (wrap or frame colour), with the values offered. */
  attribute: 'wrap' | 'color' | null
  choices: string[]
  offered: boolean
  position: number
}

export async function listCuratedProducts(db: DB, { offeredOnly = true } = {}): Promise<CuratedProduct[]> {
  let query = db.selectFrom('print_products').selectAll().orderBy('position').orderBy('sku')
  if (offeredOnly) query = query.where('offered', '=', true)
  const rows = await query.execute()
  return rows.map((row) => ({
    sku: row.sku,
    kind: row.kind,
    label: row.label,
    widthIn: row.width_in,
    heightIn: row.height_in,
    attribute: row.attribute,
    choices: row.choices,
    offered: row.offered,
    position: row.position,
  }))
}

/** The lab's product (cached a day), or null when the lab does not know the SKU. */
export async function labProduct(db: DB, lab: PrintLab, sku: string): Promise<LabProduct | null> {
  const cached = await db.selectFrom('print_lab_products').selectAll().where('sku', '=', sku).executeTakeFirst()
  if (cached && Date.now() - cached.fetched_at.getTime() < LAB_PRODUCT_TTL_MS)
    return cached.product as LabProduct | null
  const product = await lab.product(sku)
  const row = { product: product === null ? null : JSON.stringify(product), fetched_at: new Date() }
  await db
    .insertInto('print_lab_products')
    .values({ sku, ...row })
    .onConflict((oc) => oc.column('sku').doUpdateSet(row))
    .execute()
  return product
}

/** The lab's variant for the attributes chosen (the lab's single-valued attributes match any). */
export function findVariant(product: LabProduct, chosen: Record<string, string>) {
  return product.variants.find((variant) =>
    Object.entries(chosen).every(([name, value]) => variant.attributes[name] === value),
  )
}

// --- A superadmin's edits -------------------------------------------------------------------

const choiceList = z.preprocess(
  (value) =>
    typeof value === 'string'
      ? value
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean)
      : value,
  z.array(z.string().min(1).max(40)).max(12),
)

export const curatedProductSchema = z.object({
  sku: z
    .string({ required_error: 'SKU is required' })
    .trim()
    .toUpperCase()
    .regex(/^[A-Z0-9-]{3,60}$/, 'SKU must be the lab’s code, e.g. GLOBAL-CAN-12X16'),
  kind: z.enum(['canvas', 'framed', 'poster'], {
    errorMap: () => ({ message: 'Kind must be canvas, framed or poster' }),
  }),
  label: z.string({ required_error: 'Label is required' }).trim().min(1, 'Label is required').max(80),
  widthIn: z.coerce.number().int().min(1).max(100),
  heightIn: z.coerce.number().int().min(1).max(100),
  choices: choiceList.default([]),
  position: z.coerce.number().int().min(0).max(10_000).default(0),
  offered: z.preprocess((value) => value === true || value === 'on' || value === 'true', z.boolean()),
})

export type CuratedProductInput = z.infer<typeof curatedProductSchema>

/** Adds or replaces a curated product; a canvas offers wraps, a framed print frame colours. */
export async function saveCuratedProduct(db: DB, input: CuratedProductInput) {
  const attribute: CuratedProduct['attribute'] =
    input.kind === 'canvas' ? 'wrap' : input.kind === 'framed' ? 'color' : null
  if (attribute && input.choices.length === 0) {
    throw new HttpError(422, `A ${input.kind} needs at least one ${attribute === 'wrap' ? 'wrap' : 'frame colour'}`, {
      field: 'choices',
    })
  }
  const row = {
    kind: input.kind,
    label: input.label,
    width_in: input.widthIn,
    height_in: input.heightIn,
    attribute,
    choices: attribute ? input.choices : [],
    position: input.position,
    offered: input.offered,
    updated_at: new Date(),
  }
  await db
    .insertInto('print_products')
    .values({ sku: input.sku, ...row })
    .onConflict((oc) => oc.column('sku').doUpdateSet(row))
    .execute()
  // The lab's data is read again for a new or changed SKU.
  await db.deleteFrom('print_lab_products').where('sku', '=', input.sku).execute()
}
