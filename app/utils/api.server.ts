import { json, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { ZodError } from 'zod'
import { asServiceUnavailable } from '#platform/service-unavailable.server.ts'
import { recordApiCall } from '#domain/analytics/events.server.ts'
import { errorResponse, HttpError } from '#domain/http-error.server.ts'
import { assertPlainText } from './text-input.ts'

type Handler<Args> = (args: Args) => Promise<Response>

/**
 * Wraps an /api route handler so that every failure answers JSON `{ message }` with the right
 * status: thrown Responses pass through, HttpErrors keep their status, zod errors are 400s, and
 * an unreachable database, a full pool or media storage away is a 503 with Retry-After
 * (service-unavailable.server.ts), and anything unexpected is logged and answered as a plain 500
 * without internals.
 */
export function apiHandler<Args extends LoaderFunctionArgs | ActionFunctionArgs>(handler: Handler<Args>) {
  return async (args: Args) => {
    const url = new URL(args.request.url)
    const response = await answer(handler, args, url)
    recordApiCall(args.request, url.pathname, response.status)
    return response
  }
}

async function answer<Args extends LoaderFunctionArgs | ActionFunctionArgs>(
  handler: Handler<Args>,
  args: Args,
  url: URL,
) {
  try {
    assertPlainText(args.params, 'path')
    assertPlainText(url.searchParams)
    return await handler(args)
  } catch (error) {
    if (error instanceof Response) return error
    if (error instanceof HttpError) return errorResponse(error)
    if (error instanceof ZodError) {
      return json({ message: error.issues[0]?.message ?? 'Invalid request' }, { status: 400 })
    }
    const unavailable = asServiceUnavailable(error)
    if (unavailable) return errorResponse(new HttpError(unavailable.status, unavailable.message, unavailable))
    console.error('[api] unexpected error on', args.request.method, url.pathname, error)
    return json({ message: 'Something went wrong, please try again later' }, { status: 500 })
  }
}

/**
 * Reads a JSON body, answering 400 for malformed or non-object JSON instead of throwing, and 413
 * past `maxBytes` (read no further, so a huge body is never held in memory).
 */
export async function readJson(request: Request, { maxBytes = 1024 * 1024 } = {}): Promise<Record<string, unknown>> {
  const text = await readBodyText(request, maxBytes)
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    throw new HttpError(400, 'Malformed JSON body')
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'Expected a JSON object')
  assertPlainText(body)
  return body as Record<string, unknown>
}

/** The body as text, 413 past `maxBytes` (read no further). */
export async function readBodyText(request: Request, maxBytes: number) {
  return (await readBodyBytes(request, maxBytes)).toString('utf8')
}

/** The body's bytes as sent (a signature is over these), 413 past `maxBytes` (read no further). */
export async function readBodyBytes(request: Request, maxBytes: number): Promise<Buffer> {
  if (!request.body) return Buffer.alloc(0)
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read().catch(() => {
      throw new HttpError(400, 'The request body could not be read')
    })
    if (done) return Buffer.concat(chunks)
    size += value.byteLength
    // Not cancelled: for a Node request that would destroy the socket before the 413 is sent.
    if (size > maxBytes) throw new HttpError(413, 'The request body is too large')
    chunks.push(value)
  }
}
