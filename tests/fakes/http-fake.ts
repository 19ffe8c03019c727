/**
 * The common part of the local HTTP fakes that stand in for remote services (OpenAI, Gemini, Veo,
 * Google OAuth): a node:http server on 127.0.0.1 (an ephemeral port unless one is given) that hands
 * each request, body read in full, to a handler.
 */
import { createServer } from 'node:http'
import type { IncomingHttpHeaders, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import sharp from 'sharp'

export interface FakeRequest {
  method: string
  /** Path without the query string. */
  path: string
  query: URLSearchParams
  headers: IncomingHttpHeaders
  body: Buffer
}

export type FakeHandler = (request: FakeRequest, response: ServerResponse) => void | Promise<void>

export interface HttpFake {
  /** http://127.0.0.1:PORT, without a trailing slash. */
  url: string
  /** Stops the server, cutting any answer still in progress (slow modes). */
  close(): Promise<void>
}

export async function startHttpFake(handler: FakeHandler, options: { port?: number } = {}): Promise<HttpFake> {
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = []
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
    incoming.on('end', () => {
      const url = new URL(incoming.url ?? '/', 'http://fake')
      const request: FakeRequest = {
        method: incoming.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: incoming.headers,
        body: Buffer.concat(chunks),
      }
      Promise.resolve(handler(request, response)).catch((error: unknown) => {
        // A bug in a fake must be loud in the test that hit it, not a hang.
        if (response.headersSent) response.destroy()
        else sendJson(response, 599, { error: { message: `fake crashed: ${String(error)}` } })
      })
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  response.end(text)
}

export function sendHtml(response: ServerResponse, status: number, html: string): void {
  response.writeHead(status, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(html) })
  response.end(html)
}

/** Waits `ms`, or less if the client hangs up first (as a timed-out client does). */
export function waitUnlessClosed(response: ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    response.once('close', done)
    function done() {
      clearTimeout(timer)
      response.off('close', done)
      resolve()
    }
  })
}

/** Stalls like an overloaded API: true when the client gave up (timed out) meanwhile. */
export async function stalledUntilClientLeft(response: ServerResponse, ms = 5_000): Promise<boolean> {
  await waitUnlessClosed(response, ms)
  return !response.socket || response.socket.destroyed
}

/** A real, small PNG for fakes to return as a generated image. */
export function samplePng(colour = '#c8875a', size = 64): Promise<Buffer> {
  return sharp({ create: { width: size, height: size, channels: 3, background: colour } })
    .png()
    .toBuffer()
}
