import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node'
import { createSession } from '#domain/sessions/session.server.ts'
import { createUser } from '#domain/accounts/user.server.ts'
import type { Role } from '#platform/db-schema.ts'
import { getDb } from '#platform/db.server.ts'

let counter = 0

/** A user with a live session token, for calling loaders and actions as them. */
export async function createTestUser(
  options: { role?: Role; credits?: number; email?: string; password?: string; emailVerified?: boolean } = {},
) {
  counter += 1
  const user = await createUser(getDb(), {
    email: options.email ?? `user${counter}-${Date.now()}@example.com`,
    name: `Test User ${counter}`,
    password: options.password ?? 'password123',
    role: options.role ?? 'user',
    credits: options.credits,
    emailVerified: options.emailVerified,
  })
  const { token } = await createSession(getDb(), user.id)
  return { user, token }
}

interface RequestOptions {
  method?: string
  token?: string
  json?: unknown
  body?: BodyInit
  headers?: Record<string, string>
}

/** A Request to the app as a browser or API client would send it. */
export function makeRequest(path: string, options: RequestOptions = {}) {
  const headers = new Headers(options.headers)
  if (options.token) headers.set('x-auth-token', options.token)
  let body = options.body
  if (options.json !== undefined) {
    headers.set('content-type', 'application/json')
    body = JSON.stringify(options.json)
  }
  return new Request(`http://localhost${path}`, { method: options.method ?? (body ? 'POST' : 'GET'), headers, body })
}

type Handler = (args: LoaderFunctionArgs & ActionFunctionArgs) => unknown

/** Calls a route's loader or action the way Remix would, answering the Response (thrown ones too). */
export async function callRoute(handler: Handler, request: Request, params: Record<string, string> = {}) {
  try {
    const result = await handler({ request, params, context: {} })
    return result instanceof Response ? result : Response.json(result)
  } catch (error) {
    if (error instanceof Response) return error
    throw error
  }
}
