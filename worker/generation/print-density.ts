/**
 * Results are stored saying 300 DPI (issue 32, item 2), so a download opens in print and layout
 * tools at its print size. A PNG gets its pHYs chunk set in place (11 811 pixels a metre, which is
 * 300 DPI) with no decoding: a 4096 px result costs one copy of its bytes, not 64 MB of pixels.
 * Other formats are rewritten by sharp with that density.
 */
import { crc32 } from 'node:zlib'
import sharp from 'sharp'
import type { GeneratedMedia } from '#worker/providers/types.ts'

const PRINT_DPI = 300
/** pHYs counts pixels per metre: 300 / 0.0254, rounded. */
const PIXELS_PER_METRE = Math.round(PRINT_DPI / 0.0254)
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

export async function withPrintDensity(media: GeneratedMedia): Promise<GeneratedMedia> {
  if (media.mimeType === 'image/png') {
    const bytes = pngWithDensity(media.bytes)
    if (bytes) return { ...media, bytes }
  }
  if (media.mimeType === 'image/jpeg' || media.mimeType === 'image/webp') {
    const bytes = await sharp(media.bytes).keepMetadata().withMetadata({ density: PRINT_DPI }).toBuffer()
    return { ...media, bytes }
  }
  return media
}

/** The PNG with one pHYs chunk of 300 DPI right after IHDR (any earlier pHYs dropped); null if not a PNG. */
function pngWithDensity(png: Buffer): Buffer | null {
  if (png.length < 33 || !png.subarray(0, 8).equals(PNG_SIGNATURE)) return null
  const chunks: Buffer[] = [PNG_SIGNATURE]
  let at = 8
  while (at + 12 <= png.length) {
    const length = png.readUInt32BE(at)
    const type = png.toString('latin1', at + 4, at + 8)
    const end = at + 12 + length
    if (end > png.length) return null
    if (type !== 'pHYs') chunks.push(png.subarray(at, end))
    if (type === 'IHDR') chunks.push(physChunk())
    at = end
  }
  return Buffer.concat(chunks)
}

function physChunk(): Buffer {
  const chunk = Buffer.alloc(21)
  chunk.writeUInt32BE(9, 0)
  chunk.write('pHYs', 4, 'latin1')
  chunk.writeUInt32BE(PIXELS_PER_METRE, 8)
  chunk.writeUInt32BE(PIXELS_PER_METRE, 12)
  chunk.writeUInt8(1, 16) // the unit is the metre
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 17)), 17)
  return chunk
}
