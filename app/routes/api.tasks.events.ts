import type { LoaderFunctionArgs } from '@remix-run/node'
import { getTaskStreams } from '#domain/live-updates/live-updates.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requireUserId } from '#domain/permissions/permissions.server.ts'
import { getRequestToken } from '#domain/sessions/auth.server.ts'

/** Answer headers of the stream: never cached, compressed (here too: server/app.ts) or buffered on the way (Fly's proxy, nginx). */
const TASK_STREAM_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
  Connection: 'keep-alive',
}

/**
 * GET /api/tasks/events: the signed-in user's task changes as Server-Sent Events (`event: task`,
 * data a Task as the task API answers it, id the change's number). A reconnection's Last-Event-ID
 * replays what changed since; at the user's cap the oldest stream gets `event: superseded` and
 * ends, and a stream whose session is revoked gets `event: revoked` and ends
 * (domain/live-updates/task-streams.server.ts). Not part of the spec's API: the pages use it
 * instead of polling.
 */
export const loader = apiHandler(async ({ request }: LoaderFunctionArgs) => {
  const userId = await requireUserId(request)
  const session = { userId, token: (await getRequestToken(request)) ?? '' }
  const stream = getTaskStreams().open(session, request.headers.get('last-event-id'), request.signal)
  return new Response(stream, { headers: TASK_STREAM_HEADERS })
})
