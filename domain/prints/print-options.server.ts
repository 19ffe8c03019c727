import type { DB } from '#platform/db.server.ts'
import { guardLab, printLab, printLabConfig, PRINTS_NOT_AVAILABLE, type LabProduct } from './print-lab.server.ts'
import { labProduct, listCuratedProducts, type CuratedProduct } from './print-catalogue.server.ts'
import { fillsPrintArea, orientedArea } from './print-geometry.ts'
import { printableVersion } from './printable-version.server.ts'

/**
 * What a version can be printed as (issue 39, items 2 and 10): each curated product with the
 * choices (wrap, frame colour) whose print area — the lab's own figure for that variant — the
 * version's pixels fill. A product with none is shown disabled with its reason.
 */

export interface PrintOption {
  sku: string
  kind: CuratedProduct['kind']
  label: string
  widthIn: number
  heightIn: number
  attributes: Partial<Record<'wrap' | 'color', string[]>>
  available: boolean
  reason: string | null
  /** Where the lab ships it (any offered choice), ISO 3166-1 alpha-2. */
  shipsTo: string[]
}

export const MAKE_IT_BIGGER = 'Make it bigger first'

export async function printOptions(db: DB, userId: string, taskId: string, index: number) {
  const config = printLabConfig()
  if (!config) return { available: false, message: PRINTS_NOT_AVAILABLE, products: [] as PrintOption[] }
  const version = await printableVersion(db, userId, taskId, index)
  const lab = printLab(db, config)
  const curated = await listCuratedProducts(db)
  const products = await guardLab(() =>
    Promise.all(
      curated.map(async (product) => optionOf(product, version.size, await labProduct(db, lab, product.sku))),
    ),
  )
  return { available: true, message: null, products }
}

/** Each offered choice's variant at the lab (the product itself when there is no choice). */
function variantsOf(product: CuratedProduct, lab: LabProduct) {
  const choices = product.attribute ? product.choices : [null]
  return choices.flatMap((choice) => {
    const variant = lab.variants.find((v) => choice === null || v.attributes[product.attribute!] === choice)
    return variant ? [{ choice, variant }] : []
  })
}

export const areaOf = (variant: LabProduct['variants'][number]) => ({
  width: variant.printAreaSizes.default.horizontalResolution,
  height: variant.printAreaSizes.default.verticalResolution,
})

function optionOf(
  product: CuratedProduct,
  size: { width: number; height: number },
  lab: LabProduct | null,
): PrintOption {
  const base = {
    sku: product.sku,
    kind: product.kind,
    label: product.label,
    widthIn: product.widthIn,
    heightIn: product.heightIn,
  }
  const variants = lab ? variantsOf(product, lab) : []
  if (variants.length === 0) {
    return {
      ...base,
      attributes: {},
      available: false,
      reason: 'Not available from the print lab just now',
      shipsTo: [],
    }
  }
  const filled = variants.filter(({ variant }) => fillsPrintArea(size, areaOf(variant)))
  const shipsTo = [...new Set(variants.flatMap(({ variant }) => variant.shipsTo))].sort()
  const attributes = product.attribute ? { [product.attribute]: filled.map(({ choice }) => choice!) } : {}
  if (filled.length > 0) return { ...base, attributes, available: true, reason: null, shipsTo }
  const smallest = variants
    .map(({ variant }) => orientedArea(size, areaOf(variant)))
    .sort((a, b) => a.width * a.height - b.width * b.height)[0]!
  return {
    ...base,
    attributes,
    available: false,
    reason: `${MAKE_IT_BIGGER}: this size needs ${smallest.width}×${smallest.height} pixels, the portrait has ${size.width}×${size.height}`,
    shipsTo,
  }
}
