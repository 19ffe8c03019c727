import sharp from 'sharp'
import { getLogger } from '#platform/logger.server.ts'
import { UPSCALE_FALLBACK, UPSCALE_MODEL } from '#domain/generation/upscale-params.ts'
import type { TileResult, TileTask } from './upscale-messages.ts'
import { runOnThreads } from './thread-pool.ts'
import { cutTile, placeTile, tilesOf } from './tiles.ts'

/**
 * "Make it bigger": a picture enlarged ×2 or ×4 by the ESRGAN-slim model, its tiles shared by
 * `threads` worker threads of its own (upscale-thread.ts, UPSCALE_THREADS), which end with the
 * picture, so their memory goes back at once. When the model cannot be loaded, sharp's Lanczos
 * enlarges it instead, logged and named in `model`, so the page can say so. Decisions 0036, 0047.
 */

export interface UpscaleOptions {
  /** Threads that share the picture's tiles (UPSCALE_THREADS). */
  threads: number
  modelDir?: string
  signal?: AbortSignal
  onProgress?: (percent: number) => void
}

export interface Upscaled {
  bytes: Buffer
  mimeType: 'image/png'
  width: number
  height: number
  /** UPSCALE_MODEL, or UPSCALE_FALLBACK when the model could not be loaded. */
  model: string
}

/**
 * Input tiles of 384 / scale px (192 for ×2, 96 for ×4), so every tile enlarges to 384 px: a
 * thread's WASM heap grows with the tile's output, and the worker machine has 1 GB (decision 0047).
 */
const tileSize = (scale: number) => 384 / scale

/**
 * A tile takes about a second, a thread's first a few more (it loads the model): a minute without
 * an answer is a stuck thread, and fails the upscale rather than let the job wait on it.
 */
const TILE_TIMEOUT_MS = 60_000

const THREAD = new URL('./upscale-thread.ts', import.meta.url)

class ModelUnavailable extends Error {}

/** The picture's packed RGB, enlarged by the model on the threads. */
async function enlargeOnThreads(
  rgb: Uint8Array,
  width: number,
  height: number,
  scale: 2 | 4,
  options: UpscaleOptions,
): Promise<Uint8Array> {
  const tiles = tilesOf(width, height, tileSize(scale))
  const tasks = tiles.map((tile): TileTask => ({
    rgb: cutTile(rgb, width, tile),
    width: tile.read.width,
    height: tile.read.height,
    keep: { ...tile.own, x: tile.own.x - tile.read.x, y: tile.own.y - tile.read.y },
    scale,
    modelDir: options.modelDir,
  }))
  const out = new Uint8Array(width * scale * height * scale * 3)
  let done = 0
  const onTile = (result: TileResult, index: number) => {
    if ('unavailable' in result) throw new ModelUnavailable(result.unavailable)
    placeTile(out, width * scale, tiles[index], scale, result.rgb)
    done += 1
    options.onProgress?.(Math.round((done / tiles.length) * 100))
  }
  await runOnThreads(
    THREAD,
    tasks,
    {
      threads: options.threads,
      taskTimeoutMs: TILE_TIMEOUT_MS,
      signal: options.signal,
      transfer: (task) => [task.rgb.buffer as ArrayBuffer],
    },
    onTile,
  )
  return out
}

export async function upscaleImage(bytes: Buffer, scale: 2 | 4, options: UpscaleOptions): Promise<Upscaled> {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  const width = info.width * scale
  const height = info.height * scale
  let rgb: Uint8Array
  try {
    rgb = await enlargeOnThreads(new Uint8Array(data), info.width, info.height, scale, options)
  } catch (error) {
    // Logged with the task by the job's failure handling (run-generation.ts), which retries and refunds.
    if (!(error instanceof ModelUnavailable)) {
      throw new Error(`The upscale failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
    }
    getLogger().warn(`upscale: the model could not be loaded (${error.message}); enlarging with Lanczos instead`)
    const png = await sharp(bytes).removeAlpha().resize(width, height, { kernel: 'lanczos3' }).png().toBuffer()
    return { bytes: png, mimeType: 'image/png', width, height, model: UPSCALE_FALLBACK }
  }
  const png = await sharp(rgb, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer()
  return { bytes: png, mimeType: 'image/png', width, height, model: UPSCALE_MODEL }
}
