/**
 * The offline image provider: no model, no network. It crops the pet photo to a square around its
 * most interesting part, recolours it in the style's look, frames it on a background drawn from the
 * requested scene, and adds touches for the guided outfit choices. The caption says plainly that
 * the offline renderer made it. Output: a 1024x1024 PNG (HD: 4096x4096, the same picture drawn 4×
 * larger), identical for identical input and version.
 * Each version is its own seed: version 0 as described, the others with the photo mirrored every
 * other version and the backdrop's hue turned, so the versions of one run differ at a glance. A
 * re-roll's seed shifts both, so it differs from the run it came from.
 */
import sharp from 'sharp'
import { ProviderError } from '../types.ts'
import type { GeneratedMedia, ImageProvider, ImageRequest, ProviderContext } from '../types.ts'
import { petPhoto } from './image-bytes.ts'
import { makeEachVersion } from './versions.ts'
import { frameLayer, PHOTO, photoMask, topLayer } from './local/decorations.ts'
import { lookFor } from './local/looks.ts'
import type { Look } from './local/looks.ts'
import { keywordScene, plainScene, tintedScene } from './local/scenes.ts'
import { CANVAS_SIZE, svgDocument } from './local/svg.ts'
import { guidedItems } from '#domain/generation/prompt.ts'

export function createLocalImageProvider(): ImageProvider {
  return {
    name: 'local',
    model: null,
    requestPerVersion: false,
    hdLongEdge: LOCAL_HD_EDGE,
    generate: (request, context) => makeEachVersion(request, (version) => render(request, version, context)),
  }
}

/** HD's edge: the 1024 px canvas enlarged 4×. */
const LOCAL_HD_EDGE = 4096

/** Hue turn of the backdrop per version: a quarter turn apart, so four versions never share one. */
const HUE_STEP = 90

async function render(request: ImageRequest, version: number, context: ProviderContext): Promise<GeneratedMedia> {
  const look = lookFor(request.style)
  await context.onProgress(5)
  const seed = request.seed ?? 0
  const photo = await framedPhoto(petPhoto(request).bytes, look, (version + seed) % 2 === 1)
  await checkpoint(context, 50)
  const hueTurn = (version * HUE_STEP + seed) % 360

  const svg = svgDocument(CANVAS_SIZE, CANVAS_SIZE, backgroundScene(request, look) + frameLayer(look))
  const background = hueTurn === 0 ? svg : await sharp(svg).modulate({ hue: hueTurn }).png().toBuffer()
  const items = request.guided ? guidedItems(request.guided) : []
  const standard = await sharp(background)
    .composite([
      { input: photo, left: PHOTO.x, top: PHOTO.y },
      { input: topLayer(look, items, request.guided?.personification === 'yes'), left: 0, top: 0 },
    ])
    .png()
    .toBuffer()
  // A separate pipeline: sharp resizes before it composites within one.
  const bytes =
    request.quality === 'hd'
      ? await sharp(standard).resize(LOCAL_HD_EDGE, LOCAL_HD_EDGE, { kernel: 'lanczos3' }).png().toBuffer()
      : standard
  await checkpoint(context, 100)
  return { bytes, mimeType: 'image/png' }
}

/** The photo cropped to the frame's square, recoloured, and cut to the frame's shape. */
async function framedPhoto(input: Buffer, look: Look, mirrored: boolean): Promise<Buffer> {
  let square: Buffer
  try {
    square = await sharp(input, { failOn: 'error' })
      .rotate() // honour the camera's orientation tag
      .flop(mirrored)
      .flatten({ background: look.paper }) // transparent PNGs sit on the label colour
      .resize(PHOTO.size, PHOTO.size, { fit: 'cover', position: sharp.strategy.attention })
      .toBuffer()
  } catch (error) {
    throw new ProviderError('The pet photo could not be read as an image.', { retryable: false, cause: error })
  }
  // Separate pipelines: sharp runs one pipeline's operations in its own fixed order, not call order.
  const treated = await look.treat(sharp(square), PHOTO.size).png().toBuffer()
  return sharp(treated)
    .ensureAlpha()
    .composite([{ input: photoMask(look), blend: 'dest-in' }])
    .png()
    .toBuffer()
}

/**
 * In Guide mode the background field decides; otherwise a place named in the prompt may. Without
 * either the style's own backdrop is used.
 */
function backgroundScene(request: ImageRequest, look: Look): string {
  const wanted = request.guided ? request.guided.background.trim() : ''
  return (
    keywordScene(request.guided ? wanted : request.prompt) ??
    (wanted ? tintedScene(wanted) : plainScene(...look.backdrop))
  )
}

async function checkpoint(context: ProviderContext, percent: number): Promise<void> {
  if (context.signal.aborted) {
    throw new ProviderError('The offline renderer was interrupted.', { retryable: true, cause: context.signal.reason })
  }
  await context.onProgress(percent)
}
