import type { DB } from '#platform/db.server.ts'
import type { AppLogger } from '#platform/logger.server.ts'
import type { Metrics } from '#platform/metrics.server.ts'
import { eventStreamBody, type EventStreamSink, type EventStreamSource } from '#platform/event-stream.server.ts'
import type { TaskNotice } from '#domain/live-updates/task-notices.server.ts'
import type { DatabaseNotices } from '#domain/live-updates/database-notices.server.ts'
import { hashToken, liveSessionHashes } from '#domain/sessions/session.server.ts'
import {
  readQueuedTaskUpdates,
  readTaskUpdate,
  readTaskUpdatesSince,
  type TaskUpdate,
} from '#domain/live-updates/task-update-reads.server.ts'

/**
 * The open live-update streams of this web process, by user. One LISTEN connection hears every
 * task change in the database; a change of a user with open streams here is read once (the
 * task's view as the API answers it), encoded once and written to each of that user's streams.
 * Changes of the shared queue re-send the places of the queued tasks of the connected users who
 * have one, at most every QUEUE_REFRESH_MS. A comment line every `heartbeatMs` keeps proxies from
 * closing idle streams. A stream ends after `maxAgeMs` (plus up to half as much, so they do not all
 * end at once): the browser reconnects, which checks its session again (a signed-out session stops
 * hearing). A revoked session does not wait for that: the sessions trigger's notice makes the
 * user's streams here check their sessions at once, and every stream's session is checked every
 * `sessionCheckMs` anyway (a revocation whose notice was lost). A stream whose session is gone gets
 * `event: revoked` and ends; the browser must not reconnect with that session.
 *
 * 10,000 streams on one process (decision 0045): a stream holds a small object and no timer or
 * closure of its own. The heartbeats are written a slice at a time by one timer (all at once, the
 * socket writes held the process for a few hundred milliseconds every `heartbeatMs`, and a change
 * arriving then waited), and the periodic session check reads SESSION_CHECK_BATCH sessions a query.
 */

export interface TaskStreamOptions {
  db: DB
  /** The process's LISTEN connection (database-notices.server.ts). */
  notices: DatabaseNotices
  logger: AppLogger
  metrics: Metrics
  heartbeatMs: number
  maxAgeMs: number
  maxStreamsPerUser: number
  sessionCheckMs: number
}

/** Queue places are re-sent at most this often, however often the queue changes. */
const QUEUE_REFRESH_MS = 500
/** The heartbeat timer's tick: each tick writes the next of `heartbeatMs / HEARTBEAT_TICK_MS` slices of the streams. */
const HEARTBEAT_TICK_MS = 250
/** Sessions checked per query by the periodic check (one query for 10,000 held the process while its rows were read). */
const SESSION_CHECK_BATCH = 500
/** How long a browser waits before reconnecting after the stream dropped. */
const RETRY_MS = 2000
/** Bytes queued for a client that does not read: beyond this its stream is closed (it reconnects and catches up). */
const MAX_BACKLOG_BYTES = 256 * 1024

const encoder = new TextEncoder()
const RETRY = encoder.encode(`retry: ${RETRY_MS}\n\n`)
const PING = encoder.encode(': ping\n\n')
/** Tells the oldest of a user's streams, at the cap, that a newer tab took its place: that tab polls for a while. */
const SUPERSEDED = encoder.encode('event: superseded\ndata: \n\n')
/** Tells a stream that its session was revoked (signed out, password changed, banned, deleted): do not reconnect. */
const REVOKED = encoder.encode('event: revoked\ndata: \n\n')

/** What the streams need of their owner: to be forgotten when they end. */
interface StreamOwner {
  remove(stream: OpenStream): void
}

/** Holds what a stream writes before its answer is being written (the first line, a quick replay). */
class PendingSink implements EventStreamSink {
  readonly chunks: Uint8Array[] = []
  writableLength = 0

  write(chunk: Uint8Array) {
    this.chunks.push(chunk)
    this.writableLength += chunk.byteLength
  }

  end() {}
}

/**
 * One open stream: the source of its answer's body (platform/event-stream.server.ts), usually
 * written straight to the connection. Its methods live on the prototype, so 10,000 streams hold
 * 10,000 small objects rather than closures; it is also the listener of its request's abort.
 */
class OpenStream implements EventStreamSource, EventListenerObject {
  readonly owner: StreamOwner
  readonly userId: string
  /** The session it was opened with, as the sessions table keys it. */
  readonly tokenHash: string
  /** The newest change number sent (the browser's Last-Event-ID on reconnection); null before any. */
  lastSeq: number | null
  readonly endsAt: number
  /** Which heartbeat slice writes its pings. */
  slice = 0
  private sink: EventStreamSink = new PendingSink()
  private open = true

  constructor(owner: StreamOwner, userId: string, tokenHash: string, lastSeq: number | null, endsAt: number) {
    this.owner = owner
    this.userId = userId
    this.tokenHash = tokenHash
    this.lastSeq = lastSeq
    this.endsAt = endsAt
  }

  attach(sink: EventStreamSink) {
    const pending = this.sink
    this.sink = sink
    if (!this.open) return void sink.end()
    if (pending instanceof PendingSink) for (const chunk of pending.chunks) sink.write(chunk)
  }

  detach() {
    this.close()
  }

  /** The request was aborted: the client went away. */
  handleEvent() {
    this.close()
  }

  write(chunk: Uint8Array) {
    if (!this.open) return
    if (this.sink.writableLength > MAX_BACKLOG_BYTES) return this.close()
    this.sink.write(chunk)
  }

  close() {
    if (!this.open) return
    this.open = false
    this.owner.remove(this)
    this.sink.end()
  }
}

/** A change as an SSE event, encoded once for all of a user's streams: with its id, and without (see `send`). */
function encodeUpdate(update: TaskUpdate) {
  const event = `event: task\ndata: ${JSON.stringify(update.view)}\n\n`
  return { withId: encoder.encode(`id: ${update.seq}\n${event}`), withoutId: encoder.encode(event) }
}

export function createTaskStreams(options: TaskStreamOptions) {
  const { db, logger, metrics } = options
  /** Each user's open streams here, oldest first. */
  const byUser = new Map<string, OpenStream[]>()
  /** The tasks last sent as queued, of the connected users that have some: whose places a queue change moves. */
  const queuedByUser = new Map<string, Set<string>>()
  const slices = Array.from(
    { length: Math.max(1, Math.round(options.heartbeatMs / HEARTBEAT_TICK_MS)) },
    () => new Set<OpenStream>(),
  )
  let nextSlice = 0
  let subscribed = false
  let heartbeat: NodeJS.Timeout | undefined
  let queueRefresh: NodeJS.Timeout | undefined
  let sessionCheck: NodeJS.Timeout | undefined

  const all = () => slices.flatMap((slice) => [...slice])

  const owner: StreamOwner = {
    remove(stream) {
      const streams = byUser.get(stream.userId)
      const index = streams?.indexOf(stream) ?? -1
      if (!streams || index < 0) return
      streams.splice(index, 1)
      if (streams.length === 0) {
        byUser.delete(stream.userId)
        queuedByUser.delete(stream.userId)
      }
      slices[stream.slice].delete(stream)
      metrics.liveUpdateStreams.dec()
    },
  }

  /** Writes the change to these streams (all the same user's). Ids only grow: an older change arriving late goes without one (a replay's overlap covers it). */
  function send(streams: readonly OpenStream[], update: TaskUpdate) {
    if (streams.length === 0) return
    noteQueued(streams[0].userId, update)
    const chunks = encodeUpdate(update)
    for (const stream of streams) {
      const newer = stream.lastSeq === null || update.seq > stream.lastSeq
      if (newer) stream.lastSeq = update.seq
      stream.write(newer ? chunks.withId : chunks.withoutId)
    }
    metrics.liveUpdateEvents.inc(streams.length)
  }

  function noteQueued(userId: string, update: TaskUpdate) {
    if (!byUser.has(userId)) return
    const queued = queuedByUser.get(userId)
    if (update.view.status === 'queued') {
      if (queued) queued.add(update.view.id)
      else queuedByUser.set(userId, new Set([update.view.id]))
    } else if (queued?.delete(update.view.id) && queued.size === 0) {
      queuedByUser.delete(userId)
    }
  }

  async function replay(stream: OpenStream, lastSeq: number | null) {
    for (const update of await readTaskUpdatesSince(db, stream.userId, lastSeq)) send([stream], update)
  }

  async function onNotice(notice: TaskNotice) {
    if (notice.queueChanged) scheduleQueueRefresh()
    if (!byUser.has(notice.userId)) return
    const update = await readTaskUpdate(db, notice.userId, notice.taskId)
    const streams = byUser.get(notice.userId)
    if (update && streams) send(streams, update)
  }

  function scheduleQueueRefresh() {
    if (queueRefresh || queuedByUser.size === 0) return
    queueRefresh = setTimeout(() => {
      readQueuedTaskUpdates(db, [...queuedByUser.keys()])
        .then((queued) => {
          for (const { userId, update } of queued) send(byUser.get(userId) ?? [], update)
        })
        .catch((error: unknown) => logger.warn({ err: error }, 'live updates: reading queue places failed'))
        .finally(() => (queueRefresh = undefined))
    }, QUEUE_REFRESH_MS)
  }

  /** Ends, with `event: revoked`, the streams whose session no longer signs anyone in; a batch of sessions a query. */
  async function checkSessions(streams: OpenStream[]) {
    for (let start = 0; start < streams.length; start += SESSION_CHECK_BATCH) {
      const batch = streams.slice(start, start + SESSION_CHECK_BATCH)
      const live = await liveSessionHashes(
        db,
        batch.map((stream) => stream.tokenHash),
      )
      for (const stream of batch) {
        if (live.has(stream.tokenHash)) continue
        stream.write(REVOKED)
        stream.close()
      }
    }
  }

  const checkSessionsOf = (streams: OpenStream[]) =>
    checkSessions(streams).catch((error: unknown) =>
      logger.warn({ err: error }, 'live updates: checking sessions failed; checking again later'),
    )

  /** After the listener (re)connects: changes and revocations made meanwhile were not heard, so every stream catches up. */
  async function catchUp() {
    await checkSessionsOf(all())
    for (const stream of all()) {
      await replay(stream, stream.lastSeq).catch((error: unknown) =>
        logger.warn({ err: error }, 'live updates: catching up failed'),
      )
    }
  }

  /** One tick of the heartbeat: the next slice's streams get a ping, or end past their age. */
  let tick = 0
  function beat() {
    const now = Date.now()
    for (const stream of slices[tick]) {
      if (now >= stream.endsAt) stream.close()
      else stream.write(PING)
    }
    tick = (tick + 1) % slices.length
  }

  function start() {
    if (!subscribed) {
      subscribed = true
      options.notices.subscribe({
        onNotice: (notice) =>
          void onNotice(notice).catch((error: unknown) =>
            logger.warn({ err: error }, 'live updates: reading a task failed'),
          ),
        onRevocation: ({ revokedUserId }) => void checkSessionsOf([...(byUser.get(revokedUserId) ?? [])]),
        onConnected: () => void catchUp(),
      })
    }
    heartbeat ??= setInterval(beat, options.heartbeatMs / slices.length)
    heartbeat.unref()
    sessionCheck ??= setInterval(() => void checkSessionsOf(all()), options.sessionCheckMs)
    sessionCheck.unref()
  }

  return {
    /**
     * A new stream of the user's task changes, starting with what changed after `lastEventId` (or,
     * without one, the unfinished and just-changed tasks). At the user's cap the oldest stream is
     * superseded: the tab just opened is the one being looked at, and a connection whose peer
     * vanished without closing it (a phone gone offline) must not hold a slot until a ping fails.
     */
    open(
      session: { userId: string; token: string },
      lastEventId: string | null,
      signal: AbortSignal,
    ): ReadableStream<Uint8Array> {
      const { userId } = session
      const streams = byUser.get(userId) ?? []
      for (const oldest of streams.slice(0, Math.max(0, streams.length + 1 - options.maxStreamsPerUser))) {
        oldest.write(SUPERSEDED)
        oldest.close()
      }
      start()
      const lastSeq = /^\d{1,15}$/.test(lastEventId ?? '') ? Number(lastEventId) : null
      const stream = new OpenStream(
        owner,
        userId,
        hashToken(session.token),
        lastSeq,
        Date.now() + options.maxAgeMs * (1 + Math.random() / 2),
      )
      const body = eventStreamBody(stream)
      stream.slice = nextSlice
      nextSlice = (nextSlice + 1) % slices.length
      slices[stream.slice].add(stream)
      const userStreams = byUser.get(userId) ?? []
      userStreams.push(stream)
      byUser.set(userId, userStreams)
      metrics.liveUpdateStreams.inc()
      if (signal.aborted) stream.close()
      else signal.addEventListener('abort', stream, { once: true })
      stream.write(RETRY)
      replay(stream, lastSeq).catch((error: unknown) => {
        logger.warn({ err: error }, 'live updates: first read failed')
        stream.close()
      })
      return body
    },
    /** For the status page: the streams open here, and whether changes are being heard. */
    status: () => ({
      streams: slices.reduce((count, slice) => count + slice.size, 0),
      listener: !options.notices.isStarted()
        ? ('idle' as const)
        : options.notices.isListening()
          ? ('listening' as const)
          : ('reconnecting' as const),
    }),
  }
}

export type TaskStreams = ReturnType<typeof createTaskStreams>
