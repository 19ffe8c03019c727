import { sql } from 'kysely'
import type { TaskView } from '#domain/generation/task-view.ts'
import { getDb } from '#platform/db.server.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { readEventStream, type StreamEvent } from '#tests/helpers/event-stream.ts'
import { petPhoto, photoFile, taskRow, withOwnDataDir } from '#tests/helpers/generation.ts'
import { startWebProcess } from '#tests/helpers/web-process.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'

withOwnDataDir()
const db = getDb()

let webA: Awaited<ReturnType<typeof startWebProcess>>
let webB: Awaited<ReturnType<typeof startWebProcess>>
let worker: ReturnType<typeof startWorker>

beforeAll(async () => {
  ;[webA, webB] = await Promise.all([
    startWebProcess({
      LIVE_UPDATES_HEARTBEAT_MS: '300',
      LIVE_UPDATES_MAX_STREAMS_PER_USER: '4',
      LIVE_UPDATES_MAX_STREAM_AGE_MS: '2500',
    }),
    startWebProcess(),
  ])
  worker = startWorker({ IMAGE_PROVIDER: 'instant', INSTANT_PROVIDER_DELAY_MS: '1500' })
  await worker.ready()
})
afterAll(async () => {
  await Promise.all([webA?.stop(), webB?.stop(), worker?.stop()])
})

const openStream = (origin: string, token: string, headers: Record<string, string> = {}) =>
  fetch(`${origin}/api/tasks/events`, { headers: { 'x-auth-token': token, 'accept-encoding': 'gzip', ...headers } })

/** Submits an image task over HTTP to a web process; answers its id. */
async function submitImage(origin: string, token: string) {
  const form = new FormData()
  form.append('images', photoFile(await petPhoto()))
  form.append('style', 'general')
  const response = await fetch(`${origin}/api/async-image/generate`, {
    method: 'POST',
    headers: { 'x-auth-token': token },
    body: form,
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { taskId: string }).taskId
}

const viewOf = (event: StreamEvent) => JSON.parse(event.data) as TaskView
const isTask = (taskId: string, status?: string) => (event: StreamEvent) =>
  event.event === 'task' && viewOf(event).id === taskId && (!status || viewOf(event).status === status)

test('a task submitted on one web process and run by the worker reaches a stream on the other as it changes', async () => {
  const { token } = await createTestUser({ credits: 50 })
  const { token: otherToken } = await createTestUser({ credits: 50 })
  const response = await openStream(webB.origin, token)
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
  expect(response.headers.get('cache-control')).toBe('no-cache, no-transform')
  expect(response.headers.get('x-accel-buffering')).toBe('no')
  expect(response.headers.get('content-encoding')).toBeNull()
  const stream = readEventStream(response)
  const stranger = readEventStream(await openStream(webB.origin, otherToken))

  const taskId = await submitImage(webA.origin, token)
  const completed = viewOf(await stream.waitForEvent(isTask(taskId, 'completed')))
  expect(completed).toMatchObject({ id: taskId, type: 'image', progress: 100, error: null })
  expect(completed.result?.imageUrl).toMatch(new RegExp(`^/media/tasks/${taskId}/`))
  const seen = stream.events.filter(isTask(taskId))
  // A notice names the task and the web sends its row as it is then: a worker quicker than the web's
  // read folds 'queued' into 'processing', never the run itself.
  expect(seen.map((event) => viewOf(event).status)).toEqual(expect.arrayContaining(['processing', 'completed']))
  const ids = seen.map((event) => Number(event.id))
  expect(ids.every((id, index) => Number.isInteger(id) && (index === 0 || id > ids[index - 1]))).toBe(true)
  expect(stranger.events.filter(isTask(taskId))).toEqual([])
  await Promise.all([stream.close(), stranger.close()])
})

test('a reconnection with Last-Event-ID gets what changed while it was away', async () => {
  const { token } = await createTestUser({ credits: 50 })
  const first = readEventStream(await openStream(webB.origin, token))
  const taskId = await submitImage(webA.origin, token)
  const queued = await first.waitForEvent(isTask(taskId))
  await first.close()
  await waitFor(async () => (await taskRow(taskId)).status === 'completed', { timeout: 20_000 })

  const again = readEventStream(await openStream(webB.origin, token, { 'last-event-id': queued.id! }))
  const completed = await again.waitForEvent(isTask(taskId, 'completed'))
  expect(Number(completed.id)).toBeGreaterThan(Number(queued.id))
  await again.close()
})

test('a stream beyond the per-user cap supersedes the oldest, which is told so and ends; heartbeats keep an idle stream busy', async () => {
  const { token } = await createTestUser()
  type Stream = ReturnType<typeof readEventStream>
  const open: Stream[] = []
  for (let index = 0; index < 4; index++) open.push(readEventStream(await openStream(webA.origin, token)))
  await waitFor(() => open.every((stream) => stream.comments.includes('ping')), { timeout: 3000 })
  const isSuperseded = (stream: Stream) => stream.events.some((event) => event.event === 'superseded')
  // Up to the cap (4) nobody is superseded.
  expect(open.filter(isSuperseded)).toEqual([])

  const newest = await openStream(webA.origin, token)
  expect(newest.status).toBe(200)
  open.push(readEventStream(newest))
  await open[0].waitForEvent((event) => event.event === 'superseded', 3000)
  await open[0].ended
  // Exactly the oldest: the other four stay open and keep receiving heartbeats.
  const pingsBefore = open.map((stream) => stream.comments.length)
  await waitFor(() => open.slice(1).every((stream, index) => stream.comments.length > pingsBefore[index + 1]), {
    timeout: 3000,
  })
  expect(open.slice(1).filter(isSuperseded)).toEqual([])
  await Promise.all(open.slice(1).map((stream) => stream.close()))
})

test('a stream ends after its maximum age; a signed-out session cannot open another', async () => {
  const { token } = await createTestUser()
  const response = await openStream(webA.origin, token)
  const stream = readEventStream(response)
  const loggedOut = await fetch(`${webA.origin}/api/auth/logout`, {
    method: 'POST',
    headers: { 'x-auth-token': token },
  })
  expect(loggedOut.status).toBe(200)
  const started = Date.now()
  await stream.ended
  // The age is 2.5 s plus up to half again; twice that leaves room for a busy machine.
  expect(Date.now() - started).toBeLessThan(7500)
  expect((await openStream(webA.origin, token)).status).toBe(401)
})

test('without a session the stream answers 401', async () => {
  const response = await fetch(`${webB.origin}/api/tasks/events`)
  expect(response.status).toBe(401)
})

test('the LISTEN connection cut by the database: the web process reconnects and changes flow again', async () => {
  const { token } = await createTestUser({ credits: 50 })
  const stream = readEventStream(await openStream(webB.origin, token))
  await waitFor(async () => {
    const { rows } = await sql<{ pid: number }>`
      SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN task_updates%'
    `.execute(db)
    return rows.length === 2 // both web processes listen
  })
  await sql`
    SELECT pg_terminate_backend(pid) FROM pg_stat_activity
    WHERE datname = current_database() AND query LIKE 'LISTEN task_updates%'
  `.execute(db)

  const taskId = await submitImage(webA.origin, token)
  await stream.waitForEvent(isTask(taskId, 'completed'))
  expect(webB.output.join('')).toContain('task listener lost its connection')
  await stream.close()
})
