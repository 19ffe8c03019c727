/**
 * A local stand-in for Veo on the Gemini API, written from the Gemini API's video-generation guide
 * and REST reference: POST /v1beta/models/{model}:predictLongRunning starts an operation (after
 * checking the key, the model and the parameter rules of that model), GET /v1beta/{operation name}
 * reports it (done after `pollsUntilDone` polls, ending as `outcome` says), GET /v1beta/models/{model}
 * looks a model up, and the finished video's URI (GET /v1beta/files/{id}:download?alt=media, key
 * required) redirects, as Google's does, to a storage host of its own (another origin) that serves
 * a small real MP4 and records whether the API key reached it.
 * Point GEMINI_BASE_URL at `fake.baseUrl`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import type { ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runFfmpeg } from '#worker/providers/video/ffmpeg.ts'
import {
  modelResource,
  sendApiKeyInvalid,
  sendGoogleError,
  sendModelNotFound,
  sendResourceExhausted,
} from './google-errors.ts'
import { sendJson, startHttpFake } from './http-fake.ts'

export type VeoOutcome =
  | { type: 'video' }
  | { type: 'error'; code: number; message: string }
  | { type: 'rai-filtered'; reasons: string[] }
  /** The start request itself answers 429 RESOURCE_EXHAUSTED (per-minute quota, RetryInfo 1s). */
  | { type: 'rate-limited' }
  /** The start request answers 429 RESOURCE_EXHAUSTED on the per-day quota. */
  | { type: 'quota-exhausted' }

export interface VeoGeneration {
  model: string
  /** The start request's JSON body, as sent. */
  body: VeoStartBody
  operationName: string
  polls: number
  outcome: VeoOutcome
}

export interface VeoStartBody {
  instances: { prompt: string; image?: { bytesBase64Encoded: string; mimeType: string } }[]
  parameters: { aspectRatio?: string; resolution?: string; durationSeconds?: number | string }
}

/**
 * What each Veo 3.1 model accepts (Gemini API video guide): 16:9 or 9:16; 720p, 1080p or 4k;
 * 4, 6 or 8 seconds (8 by default), and 1080p and 4k only at 8 seconds.
 */
const VEO_31_RULES = {
  aspectRatios: ['16:9', '9:16'],
  resolutions: ['720p', '1080p', '4k'],
  durations: [4, 6, 8],
  eightSecondsOnly: ['1080p', '4k'],
}
const VEO_MODELS: Record<string, typeof VEO_31_RULES> = {
  'veo-3.1-generate-preview': VEO_31_RULES,
  'veo-3.1-fast-generate-preview': VEO_31_RULES,
}

export interface FakeVeo {
  baseUrl: string
  apiKey: string
  /** How the next generations end; read when each starts. */
  outcome: VeoOutcome
  pollsUntilDone: number
  /** How many of the coming polls answer 503 before the operation is reported again. */
  failingPolls: number
  generations: VeoGeneration[]
  /** Every request, to the API and to the storage host, with the API key it carried. */
  requests: { method: string; path: string; apiKey: string | undefined }[]
  /** The MP4 served for finished videos. */
  video: Buffer
  /** Back to a successful outcome after 2 polls, no failing polls, nothing recorded. */
  reset(): void
  close(): Promise<void>
}

export async function startFakeVeo(options: { apiKey?: string; port?: number } = {}): Promise<FakeVeo> {
  const apiKey = options.apiKey ?? 'test-veo-key'
  const video = await tinyMp4()
  const keyOf = (headers: Record<string, string | string[] | undefined>) => {
    const key = headers['x-goog-api-key']
    return typeof key === 'string' ? key : undefined
  }

  // Google's download redirects to a signed storage URL on another host, which needs no key.
  const storage = await startHttpFake((request, response) => {
    fake.requests.push({ method: request.method, path: request.path, apiKey: keyOf(request.headers) })
    if (request.method === 'GET' && /^\/storage\/[\w-]+\.mp4$/.test(request.path)) {
      return void response.writeHead(200, { 'content-type': 'video/mp4' }).end(fake.video)
    }
    response.writeHead(404).end()
  })

  const server = await startHttpFake((request, response) => {
    const { method, path } = request
    const key = keyOf(request.headers)
    fake.requests.push({ method, path, apiKey: key })
    if (key !== apiKey) return sendApiKeyInvalid(response)

    const start = /^\/v1beta\/models\/([^/:]+):predictLongRunning$/.exec(path)
    if (method === 'POST' && start) return startGeneration(response, decodeURIComponent(start[1]), request.body)

    const lookup = /^\/v1beta\/models\/([^/:]+)$/.exec(path)
    if (method === 'GET' && lookup) {
      const model = decodeURIComponent(lookup[1])
      if (!VEO_MODELS[model]) return sendModelNotFound(response, model, 'get')
      return sendJson(response, 200, modelResource(model, ['predictLongRunning']))
    }

    const download = /^\/v1beta\/files\/([\w-]+):download$/.exec(path)
    if (method === 'GET' && download && request.query.get('alt') === 'media') {
      return void response.writeHead(302, { location: `${storage.url}/storage/${download[1]}.mp4` }).end()
    }

    const generation = fake.generations.find((g) => `/v1beta/${g.operationName}` === path)
    if (method === 'GET' && generation && fake.failingPolls > 0) {
      fake.failingPolls -= 1
      return sendGoogleError(response, 503, 'The service is currently unavailable.', 'UNAVAILABLE')
    }
    if (method === 'GET' && generation) return sendJson(response, 200, operationState(generation))
    sendGoogleError(response, 404, `No route for ${method} ${path}`, 'NOT_FOUND')
  }, options)

  const fake: FakeVeo = {
    baseUrl: server.url,
    apiKey,
    outcome: { type: 'video' },
    pollsUntilDone: 2,
    failingPolls: 0,
    generations: [],
    requests: [],
    video,
    reset() {
      fake.outcome = { type: 'video' }
      fake.pollsUntilDone = 2
      fake.failingPolls = 0
      fake.generations = []
      fake.requests = []
    },
    close: async () => {
      await Promise.all([server.close(), storage.close()])
    },
  }

  function startGeneration(response: ServerResponse, model: string, raw: Buffer) {
    const rules = VEO_MODELS[model]
    if (!rules) return sendModelNotFound(response, model, 'predictLongRunning')
    const outcome = fake.outcome
    if (outcome.type === 'rate-limited') return sendResourceExhausted(response, model, { perDay: false })
    if (outcome.type === 'quota-exhausted') return sendResourceExhausted(response, model, { perDay: true })
    let body: VeoStartBody
    try {
      body = JSON.parse(raw.toString('utf8')) as VeoStartBody
    } catch {
      return sendGoogleError(response, 400, 'Invalid JSON payload received.', 'INVALID_ARGUMENT')
    }
    const refusal = parameterRefusal(body, rules)
    if (refusal) return sendGoogleError(response, 400, refusal, 'INVALID_ARGUMENT')
    const operationName = `models/${model}/operations/op${fake.generations.length + 1}`
    fake.generations.push({ model, body, operationName, polls: 0, outcome })
    sendJson(response, 200, { name: operationName })
  }

  function operationState(generation: VeoGeneration) {
    generation.polls += 1
    const name = generation.operationName
    if (generation.polls < fake.pollsUntilDone) return { name, done: false, metadata: {} }
    const { outcome } = generation
    if (outcome.type === 'error') return { name, done: true, error: { code: outcome.code, message: outcome.message } }
    const fileId = name.split('/').pop()
    const answer =
      outcome.type === 'rai-filtered'
        ? { raiMediaFilteredCount: 1, raiMediaFilteredReasons: outcome.reasons }
        : { generatedSamples: [{ video: { uri: `${fake.baseUrl}/v1beta/files/${fileId}:download?alt=media` } }] }
    return {
      name,
      done: true,
      response: {
        '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse',
        generateVideoResponse: answer,
      },
    }
  }

  return fake
}

/** Why the model refuses these parameters, or null when it takes them. */
function parameterRefusal(body: VeoStartBody, rules: typeof VEO_31_RULES): string | null {
  const instance = body.instances?.[0]
  if (typeof instance?.prompt !== 'string') return 'instances[0].prompt is required.'
  if (instance.image && !['image/png', 'image/jpeg'].includes(instance.image.mimeType)) {
    return `Unsupported image mime type: ${instance.image.mimeType}. Use image/png or image/jpeg.`
  }
  const { aspectRatio = '16:9', resolution = '720p', durationSeconds = 8 } = body.parameters ?? {}
  if (!rules.aspectRatios.includes(aspectRatio)) return `Unsupported aspect ratio: ${aspectRatio}.`
  if (!rules.resolutions.includes(resolution)) return `Unsupported resolution: ${resolution}.`
  const duration = Number(durationSeconds)
  if (!rules.durations.includes(duration)) return `Unsupported duration: ${durationSeconds} seconds.`
  if (rules.eightSecondsOnly.includes(resolution) && duration !== 8) {
    return `Resolution ${resolution} is only supported with a duration of 8 seconds.`
  }
  return null
}

let tinyMp4Bytes: Promise<Buffer> | undefined

/** A one-second 128x72 H.264 MP4, made once per process. */
function tinyMp4(): Promise<Buffer> {
  tinyMp4Bytes ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fake-veo-'))
    try {
      const file = join(dir, 'video.mp4')
      await runFfmpeg([
        '-f',
        'lavfi',
        '-i',
        'color=c=orange:s=128x72:d=1:r=24',
        '-c:v',
        'libx264',
        '-pix_fmt',
        'yuv420p',
        file,
      ])
      return await readFile(file)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })()
  return tinyMp4Bytes
}
