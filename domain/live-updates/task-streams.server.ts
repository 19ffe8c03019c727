import type { DB } from '#platform/db.server.ts'
import type { AppLogger } from '#platform/logger.server.ts'
import type { Metrics } from '#platform/metrics.server.ts'
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
 * task's view as the API answers it) and written to each of that user's streams. Changes of the
 * shared queue re-send the places of the connected users' queued tasks, at most every
 * QUEUE_REFRESH_MS. A comment line every `heartbeatMs` keeps proxies from closing idle streams.
 * A stream ends after `maxAgeMs` (plus up to half as much, so they do not all end at once): the
 * browser reconnects, which checks its session again (a signed-out session stops hearing).
 * A revoked session does not wait for that: the sessions trigger's notice makes the user's streams
 * here check their sessions at once, and every stream's session is checked every `sessionCheckMs`
 * anyway (a revocation whose notice was lost). A stream whose session is gone gets `event: revoked`
 * and ends; the browser must not reconnect with that session.
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

interface OpenStream {
  userId: string
  /** The session it was opened with, as the sessions table keys it. */
  tokenHash: string
  /** The newest change number sent (the browser's Last-Event-ID on reconnection); null before any. */
  lastSeq: number | null
  endsAt: number
  write: (chunk: string) => void
  close: () => void
}

/** How long a browser waits before reconnecting after the stream dropped. */
const RETRY_MS = 2000
/** Tells the oldest of a user's streams, at the cap, that a newer tab took its place: that tab polls for a while. */
const SUPERSEDED_EVENT = 'event: superseded\ndata: \n\n'
/** Tells a stream that its session was revoked (signed out, password changed, banned, deleted): do not reconnect. */
const REVOKED_EVENT = 'event: revoked\ndata: \n\n'
/** Chunks queued for a client that does not read: beyond this its stream is closed (it reconnects and catches up). */
const MAX_BACKLOG = 200

const encoder = new TextEncoder()

export function createTaskStreams(options: TaskStreamOptions) {
  const { db, logger, metrics } = options
  const byUser = new Map<string, Set<OpenStream>>()
  let subscribed = false
  let heartbeat: NodeJS.Timeout | undefined
  let queueRefresh: NodeJS.Timeout | undefined
  let sessionCheck: NodeJS.Timeout | undefined

  const all = () => [...byUser.values()].flatMap((streams) => [...streams])

  function send(stream: OpenStream, update: TaskUpdate) {
    // Ids only grow: an older change arriving late goes without one (a replay's overlap covers it).
    const id = stream.lastSeq === null || update.seq > stream.lastSeq ? `id: ${update.seq}\n` : ''
    if (id) stream.lastSeq = update.seq
    stream.write(`${id}event: task\ndata: ${JSON.stringify(update.view)}\n\n`)
    metrics.liveUpdateEvents.inc()
  }

  async function replay(stream: OpenStream, lastSeq: number | null) {
    for (const update of await readTaskUpdatesSince(db, stream.userId, lastSeq)) send(stream, update)
  }

  async function onNotice(notice: TaskNotice) {
    if (notice.queueChanged) scheduleQueueRefresh()
    const streams = byUser.get(notice.userId)
    if (!streams) return
    const update = await readTaskUpdate(db, notice.userId, notice.taskId)
    if (update) for (const stream of streams) send(stream, update)
  }

  function scheduleQueueRefresh() {
    if (queueRefresh || byUser.size === 0) return
    queueRefresh = setTimeout(() => {
      readQueuedTaskUpdates(db, [...byUser.keys()])
        .then((queued) => {
          for (const { userId, update } of queued) for (const stream of byUser.get(userId) ?? []) send(stream, update)
        })
        .catch((error: unknown) => logger.warn({ err: error }, 'live updates: reading queue places failed'))
        .finally(() => (queueRefresh = undefined))
    }, QUEUE_REFRESH_MS)
  }

  /** Ends, with `event: revoked`, the streams whose session no longer signs anyone in. */
  async function checkSessions(streams: OpenStream[]) {
    if (streams.length === 0) return
    const live = await liveSessionHashes(
      db,
      streams.map((stream) => stream.tokenHash),
    )
    for (const stream of streams) {
      if (live.has(stream.tokenHash)) continue
      stream.write(REVOKED_EVENT)
      stream.close()
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
    heartbeat ??= setInterval(() => {
      const now = Date.now()
      for (const stream of all()) {
        if (now >= stream.endsAt) stream.close()
        else stream.write(': ping\n\n')
      }
    }, options.heartbeatMs)
    heartbeat.unref()
    sessionCheck ??= setInterval(() => void checkSessionsOf(all()), options.sessionCheckMs)
    sessionCheck.unref()
  }

  function remove(stream: OpenStream) {
    const streams = byUser.get(stream.userId)
    if (!streams?.delete(stream)) return
    if (streams.size === 0) byUser.delete(stream.userId)
    metrics.liveUpdateStreams.dec()
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
      const streams = byUser.get(userId) ?? new Set<OpenStream>()
      const excess = streams.size + 1 - options.maxStreamsPerUser
      for (const oldest of excess > 0 ? [...streams].slice(0, excess) : []) {
        oldest.write(SUPERSEDED_EVENT)
        oldest.close()
      }
      start()
      const lastSeq = /^\d{1,15}$/.test(lastEventId ?? '') ? Number(lastEventId) : null
      let stream: OpenStream
      return new ReadableStream<Uint8Array>({
        start(controller) {
          let open = true
          stream = {
            userId,
            tokenHash: hashToken(session.token),
            lastSeq,
            endsAt: Date.now() + options.maxAgeMs * (1 + Math.random() / 2),
            write(chunk) {
              if (!open) return
              if ((controller.desiredSize ?? 0) < -MAX_BACKLOG) return stream.close()
              controller.enqueue(encoder.encode(chunk))
            },
            close() {
              if (!open) return
              open = false
              remove(stream)
              try {
                controller.close()
              } catch {
                // already cancelled by the reader: nothing left to close
              }
            },
          }
          streams.add(stream)
          byUser.set(userId, streams)
          metrics.liveUpdateStreams.inc()
          signal.addEventListener('abort', () => stream.close(), { once: true })
          stream.write(`retry: ${RETRY_MS}\n\n`)
          replay(stream, lastSeq).catch((error: unknown) => {
            logger.warn({ err: error }, 'live updates: first read failed')
            stream.close()
          })
        },
        cancel() {
          stream.close()
        },
      })
    },
    /** For the status page: the streams open here, and whether changes are being heard. */
    status: () => ({
      streams: all().length,
      listener: !options.notices.isStarted()
        ? ('idle' as const)
        : options.notices.isListening()
          ? ('listening' as const)
          : ('reconnecting' as const),
    }),
  }
}

export type TaskStreams = ReturnType<typeof createTaskStreams>
