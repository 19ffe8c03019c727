import { randomBytes } from 'node:crypto'
import sharp from 'sharp'
import type { TaskStatus } from '#platform/db-schema.ts'
import { finishedTaskWithVersion } from '#tests/helpers/finished-task.ts'
import { defaultProdigiCatalogue, type FakeCatalogueEntry } from '#tests/fakes/prodigi.ts'

/**
 * The Prodigi fake's catalogue with every print area divided by `factor`, so that a test's
 * 1024-pixel portrait fills the small sizes and not the largest (the ratios stay the lab's).
 */
export function scaledCatalogue(factor = 8): FakeCatalogueEntry[] {
  return defaultProdigiCatalogue().map((entry) => {
    for (const variant of entry.product.variants) {
      const area = variant.printAreaSizes.default!
      variant.printAreaSizes = {
        default: {
          horizontalResolution: Math.round(area.horizontalResolution / factor),
          verticalResolution: Math.round(area.verticalResolution / factor),
        },
      }
    }
    return entry
  })
}

/** A finished image task of the user's with one stored `width`×`height` version. */
export async function finishedPortrait(
  userId: string,
  { width = 1024, height = 1024, status = 'completed' as TaskStatus } = {},
) {
  const bytes = await sharp({ create: { width, height, channels: 3, background: '#c08040' } })
    .composite([{ input: randomBytes(64 * 4), raw: { width: 64, height: 1, channels: 4 }, top: 0, left: 0 }])
    .png()
    .toBuffer()
  return finishedTaskWithVersion(userId, bytes, status)
}

export const testRecipient = (countryCode = 'GB') => ({
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  phone: '+44 20 7946 0000',
  address: { line1: '1 Test Street', line2: 'Flat 2', townOrCity: 'London', postalOrZipCode: 'SW1A 1AA', countryCode },
})
