import { json, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { ZodError } from 'zod'
import { errorResponse, HttpError } from './http.server.ts'

type Handler<Args> = (args: Args) => Promise<Response>

/**
 * Wraps an /api route handler so that every failure answers JSON `{ message }` with the right
 * status: thrown Responses pass through, HttpErrors keep their status, zod errors are 400s, and
 * anything unexpected is logged and answered as a plain 500 without internals.
 */
export function apiHandler<Args extends LoaderFunctionArgs | ActionFunctionArgs>(handler: Handler<Args>) {
  return async (args: Args) => {
    try {
      return await handler(args)
    } catch (error) {
      if (error instanceof Response) return error
      if (error instanceof HttpError) return errorResponse(error)
      if (error instanceof ZodError) {
        return json({ message: error.issues[0]?.message ?? 'Invalid request' }, { status: 400 })
      }
      console.error('[api] unexpected error on', args.request.method, new URL(args.request.url).pathname, error)
      return json({ message: 'Something went wrong, please try again later' }, { status: 500 })
    }
  }
}

/** Reads a JSON body, answering 400 for malformed or non-object JSON instead of throwing. */
export async function readJson(request: Request): Promise<Record<string, unknown>> {
  let body: unknown
  try {
    body = await request.json()
  } catch {
    throw new HttpError(400, 'Malformed JSON body')
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'Expected a JSON object')
  return body as Record<string, unknown>
}
