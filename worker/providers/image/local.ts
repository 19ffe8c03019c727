/**
 * The offline image provider: no model, no network. It crops the pet photo to a square around its
 * most interesting part, recolours it in the style's look, frames it on a background drawn from the
 * requested scene, and adds touches for the guided outfit choices. The caption says plainly that
 * the offline renderer made it. Output: a 1024x1024 PNG (HD: 4096x4096, the same picture drawn 4×
 * larger), identical for identical input and version.
 * Each version is its own seed: version 0 as described, the others with the photo mirrored every
 * other version and the backdrop's hue turned, so the versions of one run differ at a glance. A
 * re-roll's seed shifts both, so it differs from the run it came from.
 * Several pets (issue 41) share the frame: each pet's first photo takes its own part of it (side by
 * side for two or three, a 2×2 grid for four), in the order given.
 */
import sharp from 'sharp'
import { ProviderError } from '../types.ts'
import type { GeneratedMedia, ImageProvider, ImageRequest, ProviderContext } from '../types.ts'
import { petPhotos } from './image-bytes.ts'
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
  const photo = await framedPhoto(
    petPhotos(request).map((input) => input.bytes),
    look,
    (version + seed) % 2 === 1,
  )
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

/** Where each of `count` pets sits in the frame's square: columns for two or three, a 2×2 grid for four. */
function cells(count: number) {
  const columns = count === 4 ? 2 : count
  const rows = count === 4 ? 2 : 1
  const width = Math.floor(PHOTO.size / columns)
  const height = Math.floor(PHOTO.size / rows)
  return Array.from({ length: count }, (_, index) => ({
    left: (index % columns) * width,
    top: Math.floor(index / columns) * height,
    width: index % columns === columns - 1 ? PHOTO.size - (columns - 1) * width : width,
    height: Math.floor(index / columns) === rows - 1 ? PHOTO.size - (rows - 1) * height : height,
  }))
}

/** One photo cropped to `width`×`height`: around its most interesting part for the whole frame, its centre for a pet's share of it. */
async function cropped(input: Buffer, look: Look, mirrored: boolean, width: number, height: number) {
  const position = width === height ? sharp.strategy.attention : 'centre'
  try {
    return await sharp(input, { failOn: 'error' })
      .rotate() // honour the camera's orientation tag
      .flop(mirrored)
      .flatten({ background: look.paper }) // transparent PNGs sit on the label colour
      .resize(width, height, { fit: 'cover', position })
      .toBuffer()
  } catch (error) {
    throw new ProviderError('The pet photo could not be read as an image.', { retryable: false, cause: error })
  }
}

/** The pets' photos cropped into the frame's square, recoloured, and cut to the frame's shape. */
async function framedPhoto(inputs: Buffer[], look: Look, mirrored: boolean): Promise<Buffer> {
  let square: Buffer
  if (inputs.length === 1) {
    square = await cropped(inputs[0], look, mirrored, PHOTO.size, PHOTO.size)
  } else {
    // Mirrored versions mirror each pet in its own place: the order stays the order asked for.
    const parts = await Promise.all(
      cells(inputs.length).map(async (cell, index) => ({
        input: await cropped(inputs[index], look, mirrored, cell.width, cell.height),
        left: cell.left,
        top: cell.top,
      })),
    )
    square = await sharp({ create: { width: PHOTO.size, height: PHOTO.size, channels: 3, background: look.paper } })
      .composite(parts)
      .png()
      .toBuffer()
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
