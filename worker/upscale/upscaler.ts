import { Worker } from 'node:worker_threads'
import sharp from 'sharp'
import { getLogger } from '#platform/logger.server.ts'
import { UPSCALE_FALLBACK, UPSCALE_MODEL } from '#domain/generation/upscale-params.ts'
import type { UpscaleProgress, UpscaleReply, UpscaleRequest } from './upscale-messages.ts'

/**
 * "Make it bigger": a picture enlarged ×2 or ×4 by the ESRGAN-slim model in a worker thread of its
 * own (upscale-thread.ts), which ends with the picture, so its memory goes back at once. When the
 * model cannot be loaded, sharp's Lanczos enlarges it instead, logged and named in `model`, so the
 * page can say so. Decision 0036.
 */

export interface UpscaleOptions {
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

/** Runs one request in a fresh thread; rejects on a run failure, answers `load` failures as they are. */
function runInThread(request: UpscaleRequest, options: UpscaleOptions): Promise<UpscaleReply> {
  const thread = new Worker(new URL('./upscale-thread.ts', import.meta.url))
  return new Promise<UpscaleReply>((resolve, reject) => {
    const abort = () => reject(new Error('The upscale was stopped.'))
    options.signal?.addEventListener('abort', abort, { once: true })
    thread.on('message', (message: UpscaleReply | UpscaleProgress) => {
      if ('progress' in message) options.onProgress?.(message.progress)
      else resolve(message)
    })
    thread.once('error', reject)
    thread.once('exit', (code) => reject(new Error(`The upscale thread stopped (${code}).`)))
    thread.postMessage(request, [request.rgb.buffer as ArrayBuffer])
  }).finally(() => void thread.terminate())
}

export async function upscaleImage(bytes: Buffer, scale: 2 | 4, options: UpscaleOptions = {}): Promise<Upscaled> {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  const width = info.width * scale
  const height = info.height * scale
  const request = {
    rgb: new Uint8Array(data),
    width: info.width,
    height: info.height,
    scale,
    modelDir: options.modelDir,
  }
  const reply = await runInThread(request, options)
  if (reply.ok) {
    const png = await sharp(Buffer.from(reply.rgb.buffer), { raw: { width, height, channels: 3 } })
      .png()
      .toBuffer()
    return { bytes: png, mimeType: 'image/png', width, height, model: UPSCALE_MODEL }
  }
  if (reply.stage === 'run') throw new Error(`The upscale failed: ${reply.message}`)
  getLogger().warn(`upscale: the model could not be loaded (${reply.message}); enlarging with Lanczos instead`)
  const png = await sharp(bytes).removeAlpha().resize(width, height, { kernel: 'lanczos3' }).png().toBuffer()
  return { bytes: png, mimeType: 'image/png', width, height, model: UPSCALE_FALLBACK }
}
