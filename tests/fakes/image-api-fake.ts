/**
 * The part the image-API fakes (OpenAI, Gemini) share: an API key to check, the models that exist,
 * a PNG to answer with, the requests seen, a mode that the test switches to make the next answers
 * fail or stall, and, like the real services, an optional requests-per-minute limit and an answer
 * time (the provider-bound benchmark uses both). Their vision endpoints (the photo check) answer
 * what the test set with setVisionAnswer: "pet or not" is the test's decision, never the app's.
 */
import type { ServerResponse } from 'node:http'
import { samplePng, startHttpFake } from './http-fake.ts'
import type { FakeRequest } from './http-fake.ts'

export interface ImageApiFakeOptions {
  apiKey?: string
  /** How long the `slow` mode waits; default 5 s. */
  slowMs?: number
  port?: number
  /** Every generation answers after this long (default 0). */
  latencyMs?: number
  /** Generation requests allowed in any 60 s window; more answer 429 (default: no limit). */
  rpm?: number
  /**
   * Images the fake makes in all before it refuses to make more (default: no end): a provider that
   * delivers only some of the versions asked for. See each fake for how the refusal looks.
   */
  imageBudget?: number
}

/** A vision (structured output) request as the fake read it. */
export interface RecordedVisionRequest {
  model: string
  /** The text parts, joined by newlines. */
  prompt: string
  images: { mimeType: string; bytes: Buffer }[]
  /** The JSON Schema the answer must follow. */
  schema: unknown
}

/** The answer of the fakes' vision endpoints until a test sets another: one ginger cat. */
export const ONE_PET_ANSWER = {
  pet_found: true,
  pet_count: 1,
  species: 'cat',
  breed_guess: 'domestic shorthair',
  main_colours: ['ginger', 'white'],
  markings: ['white chest'],
  problems: [],
}

export interface ImageApiFake<Mode extends string, Recorded> {
  /** The value for the provider's base URL variable. */
  baseUrl: string
  apiKey: string
  /** The PNG a successful answer carries. */
  resultPng: Buffer
  requests: Recorded[]
  visionRequests: RecordedVisionRequest[]
  /** What the vision endpoint answers from now on (the structured JSON, as an object). */
  setVisionAnswer(answer: Record<string, unknown>): void
  /** When each generation request arrived (ms since the epoch), refused ones included. */
  arrivals: number[]
  /** How many generation requests were answered 429 because of `rpm`. */
  rateLimited(): number
  setMode(mode: Mode): void
  close(): Promise<void>
}

/** What a fake's handler reads and changes; `mode` starts as 'success'. */
export interface ImageApiFakeState<Mode extends string, Recorded> {
  apiKey: string
  resultPng: Buffer
  requests: Recorded[]
  visionRequests: RecordedVisionRequest[]
  visionAnswer: Record<string, unknown>
  mode: Mode | 'success'
  options: ImageApiFakeOptions
  /**
   * Call when a generation request arrives: records it, and answers whether `rpm` leaves room
   * for it (false: the handler answers its service's 429).
   */
  admit(): boolean
  /** After a refusal by `admit`: ms until the oldest request admitted leaves the sliding minute. */
  roomInMs(): number
  /** Takes up to `wanted` images from `imageBudget`; answers how many may be made. */
  takeImages(wanted: number): number
}

export async function startImageApiFake<Mode extends string, Recorded>(
  options: ImageApiFakeOptions,
  fake: {
    defaultApiKey: string
    /** The colour of the result PNG, so tests can tell the fakes' results apart. */
    colour: string
    /** Appended to the server's URL to make `baseUrl`. */
    basePath?: string
    handle(request: FakeRequest, response: ServerResponse, state: ImageApiFakeState<Mode, Recorded>): Promise<void>
  },
): Promise<ImageApiFake<Mode, Recorded>> {
  const arrivals: number[] = []
  const admitted: number[] = []
  let refused = 0
  let budget = options.imageBudget ?? Infinity
  const state: ImageApiFakeState<Mode, Recorded> = {
    apiKey: options.apiKey ?? fake.defaultApiKey,
    resultPng: await samplePng(fake.colour),
    requests: [],
    visionRequests: [],
    visionAnswer: ONE_PET_ANSWER,
    mode: 'success',
    options,
    admit() {
      const now = Date.now()
      arrivals.push(now)
      const inWindow = admitted.filter((at) => at > now - 60_000).length
      if (options.rpm !== undefined && inWindow >= options.rpm) {
        refused += 1
        return false
      }
      admitted.push(now)
      return true
    },
    roomInMs() {
      const inWindow = admitted.filter((at) => at > Date.now() - 60_000)
      return inWindow.length === 0 ? 0 : inWindow[0] + 60_000 - Date.now()
    },
    takeImages(wanted) {
      const granted = Math.min(wanted, budget)
      budget -= granted
      return granted
    },
  }
  const server = await startHttpFake((request, response) => fake.handle(request, response, state), options)
  return {
    baseUrl: `${server.url}${fake.basePath ?? ''}`,
    apiKey: state.apiKey,
    resultPng: state.resultPng,
    requests: state.requests,
    visionRequests: state.visionRequests,
    setVisionAnswer: (answer) => {
      state.visionAnswer = answer
    },
    arrivals,
    rateLimited: () => refused,
    setMode: (next) => {
      state.mode = next
    },
    close: server.close,
  }
}

/** The most of `times` (ms) that fall in any window of `windowMs`. */
export function mostInAnyWindow(times: number[], windowMs = 60_000): number {
  const sorted = [...times].sort((a, b) => a - b)
  let most = 0
  let start = 0
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[end] - sorted[start] >= windowMs) start++
    most = Math.max(most, end - start + 1)
  }
  return most
}
