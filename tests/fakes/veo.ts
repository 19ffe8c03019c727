/**
 * A local stand-in for Veo on the Gemini API: POST /v1beta/models/{model}:predictLongRunning starts
 * an operation, GET /v1beta/{operation name} reports it (done after `pollsUntilDone` polls, ending
 * as `outcome` says), and the finished video's URI redirects, as Google's does, to a storage URL
 * that serves a small real MP4. Every API request must carry the API key in `x-goog-api-key`.
 * Point GEMINI_BASE_URL at `fake.baseUrl`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import type { ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runFfmpeg } from '#worker/providers/video/ffmpeg.ts'
import { sendJson, startHttpFake } from './http-fake.ts'

export type VeoOutcome =
  | { type: 'video' }
  | { type: 'error'; code: number; message: string }
  | { type: 'rai-filtered'; reasons: string[] }
  /** The start request itself answers 429 RESOURCE_EXHAUSTED. */
  | { type: 'rate-limited' }

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
  parameters: { aspectRatio?: string; resolution?: string }
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
  const server = await startHttpFake((request, response) => {
    const { method, path } = request
    const key = request.headers['x-goog-api-key']
    fake.requests.push({ method, path, apiKey: typeof key === 'string' ? key : undefined })

    // Storage URLs are signed, so they need no key (and Google's do not get one).
    if (method === 'GET' && /^\/storage\/[\w-]+\.mp4$/.test(path)) {
      return void response.writeHead(200, { 'content-type': 'video/mp4' }).end(fake.video)
    }
    if (key !== apiKey) {
      return sendError(response, 403, 'API key not valid. Please pass a valid API key.', 'PERMISSION_DENIED')
    }

    const start = /^\/v1beta\/models\/([^/:]+):predictLongRunning$/.exec(path)
    if (method === 'POST' && start) return startGeneration(response, decodeURIComponent(start[1]), request.body)

    const download = /^\/v1beta\/files\/([\w-]+):download$/.exec(path)
    if (method === 'GET' && download) {
      return void response.writeHead(302, { location: `${fake.baseUrl}/storage/${download[1]}.mp4` }).end()
    }

    const generation = fake.generations.find((g) => `/v1beta/${g.operationName}` === path)
    if (method === 'GET' && generation && fake.failingPolls > 0) {
      fake.failingPolls -= 1
      return sendError(response, 503, 'The service is currently unavailable.', 'UNAVAILABLE')
    }
    if (method === 'GET' && generation) return sendJson(response, 200, operationState(generation))
    sendError(response, 404, `No route for ${method} ${path}`, 'NOT_FOUND')
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
    close: server.close,
  }

  function startGeneration(response: ServerResponse, model: string, raw: Buffer) {
    const outcome = fake.outcome
    if (outcome.type === 'rate-limited') {
      return sendError(response, 429, 'Resource has been exhausted (e.g. check quota).', 'RESOURCE_EXHAUSTED')
    }
    const body = JSON.parse(raw.toString('utf8')) as VeoStartBody
    if (typeof body.instances?.[0]?.prompt !== 'string') {
      return sendError(response, 400, 'instances[0].prompt is required.', 'INVALID_ARGUMENT')
    }
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

/** Google's error body: `{ error: { code, message, status } }`. */
function sendError(response: ServerResponse, code: number, message: string, status: string) {
  sendJson(response, code, { error: { code, message, status } })
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
