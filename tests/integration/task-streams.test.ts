import { randomUUID } from 'node:crypto'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { DatabaseNotices, NoticeSubscriber } from '#domain/live-updates/database-notices.server.ts'
import { createTaskStreams } from '#domain/live-updates/task-streams.server.ts'
import { getTaskStreams } from '#domain/live-updates/live-updates.server.ts'
import { getDb } from '#platform/db.server.ts'
import { takeEventStreamSource } from '#platform/event-stream.server.ts'
import { getLogger } from '#platform/logger.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { startWebServer } from '#tests/helpers/web-server.ts'
import { waitFor } from '#tests/helpers/worker-process.ts'

// Decision 0045: what one open stream costs the web process does not grow with the number of
// streams: one heartbeat timer for all of them, a change read and encoded once for its owner's
// streams and written to those only. The streams are attached as the web server attaches them
// (straight to the connection), here to a sink that records what was written.

const db = getDb()
const decoder = new TextDecoder()
const PING = ': ping\n\n'

let subscriber: NoticeSubscriber | undefined
const notices: DatabaseNotices = {
  subscribe: (next) => void (subscriber = next),
  isListening: () => true,
  isStarted: () => subscriber !== undefined,
}

afterEach(() => {
  vi.useRealTimers()
  subscriber = undefined
})

const streamsWith = (heartbeatMs: number) =>
  createTaskStreams({
    db,
    notices,
    logger: getLogger(),
    metrics: getMetrics(),
    heartbeatMs,
    maxAgeMs: 3_600_000,
    maxStreamsPerUser: 6,
    sessionCheckMs: 60_000,
  })

/** Opens a stream of `userId` and attaches it to a sink that keeps every chunk written to it. */
function openRecorded(streams: ReturnType<typeof streamsWith>, userId: string, backlog = 0) {
  const body = streams.open({ userId, token: randomUUID() }, null, new AbortController().signal)
  const chunks: Uint8Array[] = []
  const sink = { ended: false, writableLength: backlog, write: (chunk: Uint8Array) => chunks.push(chunk) }
  takeEventStreamSource(body)!.attach({ ...sink, end: () => void (sink.ended = true) })
  return { chunks, texts: () => chunks.map((chunk) => decoder.decode(chunk)), sink }
}

test('one timer pings every open stream once per heartbeat, a slice of them at each tick, however many are open', async () => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
  // 1 s in ticks of 250 ms: four slices.
  const streams = streamsWith(1000)
  const first = openRecorded(streams, randomUUID())
  const timers = vi.getTimerCount()
  const open = [first, ...Array.from({ length: 39 }, () => openRecorded(streams, randomUUID()))]
  expect(vi.getTimerCount()).toBe(timers)
  expect(streams.status().streams).toBe(40)

  const pings = () => open.map((stream) => stream.texts().filter((text) => text === PING).length)
  vi.advanceTimersByTime(250)
  expect(pings().filter((count) => count === 1)).toHaveLength(10)
  expect(pings().filter((count) => count > 1)).toEqual([])
  vi.advanceTimersByTime(750)
  expect(pings()).toEqual(open.map(() => 1))
  vi.advanceTimersByTime(1000)
  expect(pings()).toEqual(open.map(() => 2))
})

test("a task's change is encoded once and written to its owner's streams only", async () => {
  const streams = streamsWith(60_000)
  const [{ user: owner }, { user: stranger }] = await Promise.all([createTestUser(), createTestUser()])
  const { id: taskId } = await db
    .insertInto('generation_tasks')
    .values({ user_id: owner.id, kind: 'image', params: {}, credit_cost: 2, provider: 'local' })
    .returning('id')
    .executeTakeFirstOrThrow()
  const ownerStreams = [1, 2, 3].map(() => openRecorded(streams, owner.id))
  const strangerStreams = [1, 2].map(() => openRecorded(streams, stranger.id))
  const isProcessing = (text: string) => text.includes(`"id":"${taskId}"`) && text.includes('"status":"processing"')
  // The first read sends the queued task (unfinished) to each of the owner's streams.
  await waitFor(() => ownerStreams.every((stream) => stream.texts().some((text) => text.includes(taskId))))

  const { update_seq: seq } = await db
    .updateTable('generation_tasks')
    .set({ status: 'processing' })
    .where('id', '=', taskId)
    .returning('update_seq')
    .executeTakeFirstOrThrow()
  subscriber!.onNotice!({ taskId, userId: owner.id, seq: Number(seq), queueChanged: false })
  await waitFor(() => ownerStreams.every((stream) => stream.texts().some(isProcessing)))

  const written = ownerStreams.map((stream) => stream.chunks.find((chunk) => isProcessing(decoder.decode(chunk))))
  expect(written.every((chunk) => chunk === written[0])).toBe(true)
  expect(decoder.decode(written[0])).toMatch(new RegExp(`^id: ${seq}\nevent: task\ndata: `))
  for (const stream of strangerStreams) expect(stream.texts()).toEqual(['retry: 2000\n\n'])
})

test('a client that takes nothing more is cut off once its backlog passes the limit', () => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
  const streams = streamsWith(250)
  const userId = randomUUID()
  const taking = openRecorded(streams, userId)
  const stuck = openRecorded(streams, userId, 1024 * 1024)
  expect(streams.status().streams).toBe(2)
  // The next heartbeat finds a megabyte not taken: that stream ends, the user's other one stays.
  vi.advanceTimersByTime(250)
  expect(stuck.sink.ended).toBe(true)
  expect(stuck.texts()).not.toContain(PING)
  expect(taking.sink.ended).toBe(false)
  expect(taking.texts()).toContain(PING)
  expect(streams.status().streams).toBe(1)
})

test('a stream whose client goes away is forgotten, also after the request it was opened with was collected', async () => {
  const web = await startWebServer()
  try {
    const { token } = await createTestUser()
    const streams = getTaskStreams()
    const client = new AbortController()
    const response = await fetch(`${web.origin}/api/tasks/events`, {
      headers: { 'x-auth-token': token },
      signal: client.signal,
    })
    expect(response.status).toBe(200)
    expect(streams.status().streams).toBe(1)
    // Nothing holds the Fetch request once its loader answered: a full collection takes it, and
    // with it any listener on its signal.
    setFlagsFromString('--expose-gc')
    ;(runInNewContext('gc') as () => void)()
    client.abort()
    await waitFor(() => streams.status().streams === 0)
  } finally {
    await web.close()
  }
})
