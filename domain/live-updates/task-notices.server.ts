import pg from 'pg'
import { z } from 'zod'
import type { AppLogger } from '#platform/logger.server.ts'

/**
 * The channel the generation_tasks trigger notifies on (migration 2026-11-25-0023), and the
 * sessions and users triggers when a user's sessions were revoked (migration 2026-11-26-0032).
 */
const TASK_UPDATES_CHANNEL = 'task_updates'

/** One committed change of a task: whose, which, its change number, and whether the shared queue moved. */
export interface TaskNotice {
  taskId: string
  userId: string
  seq: number
  queueChanged: boolean
}

/** Some of the user's sessions were revoked (a logout, a password change, a ban, a deletion). */
export interface RevocationNotice {
  revokedUserId: string
}

const noticeSchema = z.union([
  z.object({ t: z.string(), u: z.string(), s: z.number(), q: z.boolean() }),
  z.object({ r: z.string() }),
])

function parseNotice(payload: string | undefined): TaskNotice | RevocationNotice | null {
  try {
    const notice = noticeSchema.parse(JSON.parse(payload ?? ''))
    if ('r' in notice) return { revokedUserId: notice.r }
    return { taskId: notice.t, userId: notice.u, seq: notice.s, queueChanged: notice.q }
  } catch {
    return null
  }
}

interface ListenOptions {
  connectionString: string
  applicationName?: string
  onNotice: (notice: TaskNotice) => void
  onRevocation: (notice: RevocationNotice) => void
  /** Called after every (re)connection: notices sent while it was down are lost, so callers catch up. */
  onConnected: () => void
  onReconnect?: () => void
  logger: Pick<AppLogger, 'info' | 'warn'>
  minDelayMs?: number
  maxDelayMs?: number
  /** How often the connection proves it is answered (a database that hangs sends no error). */
  probeEveryMs?: number
}

/** The listener's queries (LISTEN, the probe) must be answered within this, or the connection is replaced. */
const QUERY_TIMEOUT_MS = 5_000

/**
 * One dedicated connection that LISTENs for task changes and session revocations. A lost connection (database restart,
 * network) is retried with a doubling delay up to `maxDelayMs`; no error ever escapes, so the web
 * process keeps serving while the database is away. A connection that stays open but unanswered
 * (a database that hangs, a partition) fails its probe, `SELECT 1` every `probeEveryMs` with a
 * client-side timeout, and is replaced the same way. It needs a session connection (not a
 * transaction-mode pooler).
 */
export function listenForTaskNotices(options: ListenOptions) {
  const { minDelayMs = 250, maxDelayMs = 15_000, probeEveryMs = 10_000, logger } = options
  let delayMs = minDelayMs
  let client: pg.Client | null = null
  let timer: NodeJS.Timeout | undefined
  let listening = false

  const probe = setInterval(() => {
    const current = client
    if (!listening || !current) return
    current
      .query('SELECT 1')
      .catch((error: unknown) => client === current && retry(error instanceof Error ? error.message : String(error)))
  }, probeEveryMs)
  probe.unref()

  const retry = (reason: string) => {
    listening = false
    if (timer) return
    logger.warn({ reason, delayMs }, 'live updates: task listener lost its connection; retrying')
    client?.removeAllListeners()
    client?.on('error', () => {})
    client?.end().catch(() => {})
    client = null
    timer = setTimeout(() => {
      timer = undefined
      options.onReconnect?.()
      void connect()
    }, delayMs)
    delayMs = Math.min(delayMs * 2, maxDelayMs)
  }

  const connect = async () => {
    const next = new pg.Client({
      connectionString: options.connectionString,
      application_name: options.applicationName,
      connectionTimeoutMillis: 5_000,
      query_timeout: QUERY_TIMEOUT_MS,
    })
    client = next
    next.on('error', (error) => retry(error.message))
    next.on('end', () => retry('connection ended'))
    next.on('notification', (message) => {
      const notice = parseNotice(message.payload)
      if (notice && 'revokedUserId' in notice) options.onRevocation(notice)
      else if (notice) options.onNotice(notice)
    })
    try {
      await next.connect()
      await next.query(`LISTEN ${TASK_UPDATES_CHANNEL}`)
    } catch (error) {
      if (client === next) retry(error instanceof Error ? error.message : String(error))
      return
    }
    if (client !== next) return
    delayMs = minDelayMs
    listening = true
    logger.info('live updates: listening for task changes')
    options.onConnected()
  }

  void connect()
  return {
    isListening: () => listening,
  }
}
