/**
 * A long-lived Server-Sent Events body (the live task updates) that the web server writes straight
 * to the connection (server/api-router.ts) rather than through a ReadableStream: a ReadableStream,
 * its controller, reader and pending read cost a few kilobytes a connection, which 10,000 open
 * streams multiply (decision 0045). Any other reader of the Response (Remix's handler, a test
 * calling the loader) still reads it as a ReadableStream.
 */
import type { ServerResponse } from 'node:http'

/** Where a stream's bytes go: node's ServerResponse has this shape; so does the ReadableStream adapter below. */
export interface EventStreamSink {
  write(chunk: Uint8Array): unknown
  end(): unknown
  /** Bytes written and not yet taken by the client. */
  readonly writableLength: number
}

/** What produces a stream's events, told where to write them once the answer is being written. */
export interface EventStreamSource {
  attach(sink: EventStreamSink): void
  /** The reader went away: a ReadableStream cancelled, or the connection it was attached to closed. */
  detach(): void
}

const sources = new WeakMap<ReadableStream<Uint8Array>, EventStreamSource>()

/**
 * The body for a Response: a ReadableStream that attaches the source when first read, unless the
 * web server takes the source first (`takeEventStreamSource`) and writes to the connection itself.
 */
export function eventStreamBody(source: EventStreamSource): ReadableStream<Uint8Array> {
  let attached = false
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (attached) return
        attached = true
        source.attach(new ControllerSink(controller))
      },
      cancel: () => source.detach(),
    },
    // Nothing is pulled before a read; desiredSize is minus the bytes queued.
    new ByteLengthQueuingStrategy({ highWaterMark: 0 }),
  )
  sources.set(body, source)
  return body
}

/** The body's source, for the web server to attach to the connection; the body itself must then not be read. */
export function takeEventStreamSource(body: ReadableStream<Uint8Array>): EventStreamSource | undefined {
  const source = sources.get(body)
  sources.delete(body)
  return source
}

/**
 * Writes the source to the answer (its headers already out) until the connection closes. The
 * connection's own close ends it: the Fetch request's signal is no use here, as nothing keeps the
 * request once its loader has answered, and a collected request takes its signal's listeners
 * along (a closed stream would stay open until its age ran out).
 */
export function writeEventStream(source: EventStreamSource, response: ServerResponse) {
  if (response.destroyed) return source.detach()
  response.once('close', () => source.detach())
  source.attach(response)
}

class ControllerSink implements EventStreamSink {
  private readonly controller: ReadableStreamDefaultController<Uint8Array>

  constructor(controller: ReadableStreamDefaultController<Uint8Array>) {
    this.controller = controller
  }

  write(chunk: Uint8Array) {
    this.controller.enqueue(chunk)
  }

  end() {
    try {
      this.controller.close()
    } catch {
      // already cancelled by the reader: nothing left to close
    }
  }

  get writableLength() {
    return -(this.controller.desiredSize ?? 0)
  }
}
