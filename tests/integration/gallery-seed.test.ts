import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import { DEMO_TEMPLATE_COUNT, seedDemoGallery } from '../../scripts/seed/demo-gallery.ts'
import { listTemplates } from '#domain/gallery/templates.server.ts'
import { defaultGalleryStyles } from '../../scripts/seed/defaults.ts'
import { getDb } from '#platform/db.server.ts'
import { createLocalStorage, getMediaBytes } from '#platform/storage.server.ts'

const storage = createLocalStorage(fs.mkdtempSync(path.join(os.tmpdir(), 'pawtrait-gallery-seed-')))
const keyOf = (url: string) => url.replace(/^\/media\//, '')

// Rendering two dozen portraits offline takes several seconds on a small machine.
test(
  'an empty gallery is filled with demo templates across every default style, once',
  { timeout: 180_000 },
  async () => {
    expect(await seedDemoGallery(getDb(), storage)).toBe(DEMO_TEMPLATE_COUNT)
    const images = await listTemplates(getDb())
    expect(images).toHaveLength(DEMO_TEMPLATE_COUNT)
    expect(DEMO_TEMPLATE_COUNT).toBeGreaterThanOrEqual(18)

    for (const [style] of defaultGalleryStyles) {
      expect(images.filter((image) => image.parameters.style === style).length, style).toBeGreaterThanOrEqual(2)
    }
    expect(new Set(images.map((image) => image.name)).size).toBe(DEMO_TEMPLATE_COUNT)
    expect(new Set(images.map((image) => image.thumbnailUrl)).size).toBe(DEMO_TEMPLATE_COUNT)
    expect(images.every((image) => image.parameters.otherParams.templatePrompt.length > 0)).toBe(true)

    for (const image of images) {
      for (const url of [image.originalImageUrl, image.imageUrl]) expect(await storage.stat(keyOf(url))).not.toBeNull()
      const thumbnail = await getMediaBytes(storage, keyOf(image.thumbnailUrl))
      const metadata = await sharp(thumbnail!).metadata()
      expect([metadata.format, metadata.width]).toEqual(['webp', 480])
      expect(metadata.height).toBe(Math.round((480 * image.height) / image.width))
    }
    // Portrait and square crops keep the masonry grid varied.
    expect(new Set(images.map((image) => image.width)).size).toBeGreaterThan(1)

    expect(await seedDemoGallery(getDb(), storage)).toBe(0)
    expect(await listTemplates(getDb())).toHaveLength(DEMO_TEMPLATE_COUNT)
  },
)
