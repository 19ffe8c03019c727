import { applicationName } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { getLogger } from '#platform/logger.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import {
  listenForTaskNotices,
  type RevocationNotice,
  type TaskNotice,
} from '#domain/live-updates/task-notices.server.ts'

/** What one part of the web process wants to hear from the database (each hook optional). */
export interface NoticeSubscriber {
  onNotice?: (notice: TaskNotice) => void
  onRevocation?: (notice: RevocationNotice) => void
  /** After every (re)connection: notices sent while it was down are lost. */
  onConnected?: () => void
}

export type DatabaseNotices = ReturnType<typeof createDatabaseNotices>

/**
 * The web process's one LISTEN connection (task-notices.server.ts), opened with the first
 * subscriber and shared by all: the live streams (task-streams.server.ts) and the session cache
 * (domain/sessions/session-cache.server.ts).
 */
function createDatabaseNotices(connect: (subscribers: Set<NoticeSubscriber>) => { isListening: () => boolean }) {
  const subscribers = new Set<NoticeSubscriber>()
  let listener: { isListening: () => boolean } | undefined
  return {
    subscribe(subscriber: NoticeSubscriber) {
      subscribers.add(subscriber)
      listener ??= connect(subscribers)
    },
    /** False while the connection is lost (or not yet made): notices may be missed meanwhile. */
    isListening: () => listener?.isListening() ?? false,
    /** Whether anything subscribed yet (the status page's "idle"). */
    isStarted: () => listener !== undefined,
  }
}

let shared: DatabaseNotices | undefined

export function getDatabaseNotices(): DatabaseNotices {
  shared ??= createDatabaseNotices((subscribers) => {
    const metrics = getMetrics()
    return listenForTaskNotices({
      connectionString: getEnv().DATABASE_URL ?? '',
      applicationName: applicationName(),
      logger: getLogger(),
      onNotice: (notice) => subscribers.forEach((subscriber) => subscriber.onNotice?.(notice)),
      onRevocation: (notice) => subscribers.forEach((subscriber) => subscriber.onRevocation?.(notice)),
      onConnected: () => subscribers.forEach((subscriber) => subscriber.onConnected?.()),
      onReconnect: () => metrics.liveUpdateReconnects.inc(),
    })
  })
  return shared
}
