import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { parentPort } from 'node:worker_threads'
import * as tf from '@tensorflow/tfjs'
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm'
import type { UpscaleReply, UpscaleRequest } from './upscale-messages.ts'

/**
 * Runs in a worker thread (upscaler.ts), so the worker's event loop keeps its heartbeats and other
 * jobs while a picture is enlarged: UpscalerJS's ESRGAN-slim (RDN, MIT) on TensorFlow.js's WASM
 * backend, tile by tile so memory stays bounded whatever the picture's size. Decision 0036.
 */

/** Input tiles of this many pixels, each read with OVERLAP pixels of context on every side. */
const TILE = 128
const OVERLAP = 8

const require = createRequire(import.meta.url)
const modelsRoot = () => join(require.resolve('@upscalerjs/esrgan-slim').split('/dist/')[0], 'models')

let ready: Promise<void> | undefined
const models = new Map<number, Promise<tf.LayersModel>>()

function backend() {
  ready ??= (async () => {
    setWasmPaths(join(dirname(require.resolve('@tensorflow/tfjs-backend-wasm')), '/'))
    if (!(await tf.setBackend('wasm'))) throw new Error('the WASM backend did not start')
    await tf.ready()
  })()
  return ready
}

async function loadModel(scale: number, modelDir: string) {
  const dir = join(modelDir, `x${scale}`)
  const manifest = JSON.parse(await readFile(join(dir, 'model.json'), 'utf8'))
  const group = manifest.weightsManifest[0]
  const weights = await readFile(join(dir, group.paths[0]))
  return tf.loadLayersModel(
    tf.io.fromMemory({
      modelTopology: manifest.modelTopology,
      weightSpecs: group.weights,
      weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
    }),
  )
}

function model(scale: number, modelDir: string) {
  let loading = models.get(scale)
  if (!loading) {
    loading = loadModel(scale, modelDir)
    loading.catch(() => models.delete(scale))
    models.set(scale, loading)
  }
  return loading
}

/** One tile: its padded input region through the model, the part that is the tile's own copied out. */
function upscaleTile(net: tf.LayersModel, request: UpscaleRequest, out: Uint8Array, x0: number, y0: number) {
  const { rgb, width, height, scale } = request
  const w = Math.min(TILE, width - x0)
  const h = Math.min(TILE, height - y0)
  const px = Math.max(0, x0 - OVERLAP)
  const py = Math.max(0, y0 - OVERLAP)
  const pw = Math.min(width, x0 + w + OVERLAP) - px
  const ph = Math.min(height, y0 + h + OVERLAP) - py
  const input = new Float32Array(pw * ph * 3)
  for (let y = 0; y < ph; y++) {
    const from = ((py + y) * width + px) * 3
    for (let i = 0; i < pw * 3; i++) input[y * pw * 3 + i] = rgb[from + i]
  }
  const output = tf.tidy(() => net.predict(tf.tensor4d(input, [1, ph, pw, 3])) as tf.Tensor).dataSync()
  const outW = pw * scale
  const offX = (x0 - px) * scale
  const offY = (y0 - py) * scale
  const outWidth = width * scale
  for (let y = 0; y < h * scale; y++) {
    const from = ((offY + y) * outW + offX) * 3
    const to = ((y0 * scale + y) * outWidth + x0 * scale) * 3
    for (let i = 0; i < w * scale * 3; i++) out[to + i] = Math.min(255, Math.max(0, Math.round(output[from + i])))
  }
}

async function upscale(request: UpscaleRequest): Promise<UpscaleReply> {
  let net: tf.LayersModel
  try {
    await backend()
    net = await model(request.scale, request.modelDir ?? modelsRoot())
  } catch (error) {
    return { ok: false, stage: 'load', message: String(error) }
  }
  const out = new Uint8Array(request.width * request.scale * request.height * request.scale * 3)
  const tiles = Math.ceil(request.width / TILE) * Math.ceil(request.height / TILE)
  let done = 0
  for (let y0 = 0; y0 < request.height; y0 += TILE) {
    for (let x0 = 0; x0 < request.width; x0 += TILE) {
      upscaleTile(net, request, out, x0, y0)
      parentPort?.postMessage({ progress: Math.round((++done / tiles) * 100) })
    }
  }
  return { ok: true, rgb: out }
}

parentPort?.on('message', (request: UpscaleRequest) => {
  upscale(request).then(
    (reply) => parentPort?.postMessage(reply, reply.ok ? [reply.rgb.buffer as ArrayBuffer] : []),
    (error: unknown) => parentPort?.postMessage({ ok: false, stage: 'run', message: String(error) }),
  )
})
