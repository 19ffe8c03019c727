/** Shared inputs for the image provider tests (not a test file itself). */
import sharp from 'sharp'
import type { GuidedOptions, ImageMimeType, ImageRequest } from '#worker/providers/types.ts'

export { providerFailure, testContext } from './provider-fixtures.ts'

const FORMAT_OF: Record<ImageMimeType, 'png' | 'jpeg' | 'webp'> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/webp': 'webp',
}

/** A drawn "pet" (a face on a blue wall), landscape so the square crop has work to do. */
export async function petPhoto(mimeType: ImageMimeType = 'image/jpeg', width = 900, height = 600) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 900 600">
    <rect width="900" height="600" fill="#6a8caf"/>
    <ellipse cx="560" cy="330" rx="190" ry="170" fill="#d9a066"/>
    <circle cx="500" cy="300" r="22" fill="#222"/><circle cx="620" cy="300" r="22" fill="#222"/>
    <ellipse cx="560" cy="380" rx="40" ry="26" fill="#3b2a1a"/>
    <path d="M390 200 L430 90 L480 190 Z" fill="#b5773e"/><path d="M640 190 L690 90 L730 200 Z" fill="#b5773e"/>
  </svg>`
  const bytes = await sharp(Buffer.from(svg)).toFormat(FORMAT_OF[mimeType]).toBuffer()
  return { bytes, mimeType }
}

export function guided(overrides: Partial<GuidedOptions> = {}): GuidedOptions {
  return {
    personification: 'no',
    clothingTop: '',
    accessories: '',
    clothingPants: '',
    clothingShoes: '',
    action: '',
    background: '',
    ...overrides,
  }
}

export async function imageRequest(overrides: Partial<ImageRequest> = {}): Promise<ImageRequest> {
  return { images: [await petPhoto()], prompt: 'A corgi in a raincoat', style: 'general', guided: null, ...overrides }
}
