import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import * as tf from '@tensorflow/tfjs'
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm'
import type { TileResult, TileTask } from './upscale-messages.ts'
import { answerTasks } from './thread-tasks.ts'

/**
 * One of the upscaler's threads (upscaler.ts), so the worker's event loop keeps its heartbeats and
 * other jobs while a picture is enlarged: UpscalerJS's ESRGAN-slim (RDN, MIT) on TensorFlow.js's
 * WASM backend, loaded once per thread, enlarging the tiles it is handed one at a time. Decisions
 * 0036 and 0047.
 */

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

/** The tile's region through the model; the part that is the tile's own copied out, clamped to bytes. */
function enlarge(net: tf.LayersModel, { rgb, width, height, keep, scale }: TileTask): Uint8Array {
  const result = tf.tidy(() => net.predict(tf.tensor4d(Float32Array.from(rgb), [1, height, width, 3])) as tf.Tensor)
  try {
    const output = result.dataSync()
    const outWidth = width * scale
    const keptWidth = keep.width * scale
    const kept = new Uint8Array(keptWidth * keep.height * scale * 3)
    for (let y = 0; y < keep.height * scale; y++) {
      const from = ((keep.y * scale + y) * outWidth + keep.x * scale) * 3
      for (let i = 0; i < keptWidth * 3; i++) {
        kept[y * keptWidth * 3 + i] = Math.min(255, Math.max(0, Math.round(output[from + i])))
      }
    }
    return kept
  } finally {
    // tidy keeps what it returns: without this every tile's output stayed in the WASM heap.
    result.dispose()
  }
}

answerTasks<TileTask, TileResult>(
  async (task) => {
    let net: tf.LayersModel
    try {
      await backend()
      net = await model(task.scale, task.modelDir ?? modelsRoot())
    } catch (error) {
      return { unavailable: String(error) }
    }
    return { rgb: enlarge(net, task) }
  },
  (result) => ('rgb' in result ? [result.rgb.buffer as ArrayBuffer] : []),
)
