/**
 * The part the image-API fakes (OpenAI, Gemini) share: an API key to check, a PNG to answer with,
 * the requests seen, and a mode that the test switches to make the next answers fail or stall.
 */
import type { ServerResponse } from 'node:http'
import { samplePng, startHttpFake } from './http-fake.ts'
import type { FakeRequest } from './http-fake.ts'

export interface ImageApiFakeOptions {
  apiKey?: string
  /** How long the `slow` mode waits; default 5 s. */
  slowMs?: number
  port?: number
}

export interface ImageApiFake<Mode extends string, Recorded> {
  /** The value for the provider's base URL variable. */
  baseUrl: string
  apiKey: string
  /** The PNG a successful answer carries. */
  resultPng: Buffer
  requests: Recorded[]
  setMode(mode: Mode): void
  close(): Promise<void>
}

/** What a fake's handler reads and changes; `mode` starts as 'success'. */
export interface ImageApiFakeState<Mode extends string, Recorded> {
  apiKey: string
  resultPng: Buffer
  requests: Recorded[]
  mode: Mode | 'success'
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
  const state: ImageApiFakeState<Mode, Recorded> = {
    apiKey: options.apiKey ?? fake.defaultApiKey,
    resultPng: await samplePng(fake.colour),
    requests: [],
    mode: 'success',
  }
  const server = await startHttpFake((request, response) => fake.handle(request, response, state), options)
  return {
    baseUrl: `${server.url}${fake.basePath ?? ''}`,
    apiKey: state.apiKey,
    resultPng: state.resultPng,
    requests: state.requests,
    setMode: (next) => {
      state.mode = next
    },
    close: server.close,
  }
}
