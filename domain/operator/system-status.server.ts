/**
 * What the System Status page shows a super administrator: the queue and the last day's outcomes
 * per kind with the commonest failure reasons, each provider's last check and circuit breaker, the workers alive in
 * the last minute, the rate limits reached now (docs/limits.md), the Content-Security-Policy
 * violations browsers reported, where media is stored, whether card payments are on, the print
 * lab (sandbox or live, its last answer)
 * and which build runs. Read from the database on each
 * visit (and each 10 s refresh): a few grouped counts over the last day's tasks.
 */
import { sql } from 'kysely'
import { buildVersion } from '#platform/build-version.server.ts'
import type { DB } from '#platform/db.server.ts'
import type { TaskKind } from '#platform/db-schema.ts'
import { getEnv } from '#platform/env.server.ts'
import { moderationState } from '#platform/moderation-state.server.ts'
import { cardPaymentsState } from '#platform/stripe.server.ts'
import { listProviderChecks } from '#domain/generation/provider-checks.server.ts'
import { listBreakers } from '#domain/generation/provider-breakers.server.ts'
import { cspReportSummary } from '#domain/operator/csp-reports.server.ts'
import { redactUrlsIn } from '#platform/url-redaction.ts'
import { listLiveWorkers } from '#domain/operator/worker-processes.server.ts'
import { trippedRateLimits } from '#domain/limits/rate-limit.server.ts'
import { delayedAccountCount } from '#domain/limits/login-delay.server.ts'
import { printLabStatus } from '#domain/prints/print-lab.server.ts'

export interface KindStatus {
  kind: TaskKind
  queued: number
  running: number
  completedLastHour: number
  failedLastHour: number
  completedLastDay: number
  failedLastDay: number
}

const kinds: TaskKind[] = ['image', 'video']
const REASONS_SHOWN = 5

export async function systemStatus(db: DB) {
  const [tasks, failureReasons, providers, breakers, workers, cspReports, tripped, delayedAccounts, printLab] =
    await Promise.all([
      taskCountsByKind(db),
      commonFailureReasons(db),
      listProviderChecks(db),
      listBreakers(db),
      listLiveWorkers(db),
      cspReportSummary(db),
      trippedRateLimits(db),
      delayedAccountCount(db),
      printLabStatus(db),
    ])
  const env = getEnv()
  return {
    tasks,
    // Provider errors can quote a URL with a signature or a key in its query (decision 0025).
    failureReasons: failureReasons.map((row) => ({ ...row, reason: redactUrlsIn(row.reason) })),
    providers: providers.map((check) => ({ ...check, detail: check.detail && redactUrlsIn(check.detail) })),
    // Each image provider's circuit breaker (docs/decisions/0033) and the last error it counted.
    breakers: breakers.map((breaker) => ({
      provider: breaker.provider,
      state: breaker.state,
      failures: breaker.failures,
      openedAt: breaker.opened_at,
      openReason: breaker.open_reason,
      lastError: breaker.last_error && redactUrlsIn(breaker.last_error),
      lastErrorAt: breaker.last_error_at,
    })),
    workers,
    cspReports,
    rateLimits: { tripped, delayedAccounts },
    storage: {
      driver: env.STORAGE_DRIVER,
      location: env.STORAGE_DRIVER === 's3' ? (env.S3_BUCKET ?? '') : `${env.DATA_DIR}/media`,
    },
    moderation: moderationState(),
    cardPayments: cardPaymentsState(),
    printLab,
    version: buildVersion(),
    checkedAt: new Date(),
  }
}

async function taskCountsByKind(db: DB): Promise<KindStatus[]> {
  const hourAgo = sql`now() - interval '1 hour'`
  const dayAgo = sql<Date>`now() - interval '1 day'`
  const rows = await db
    .selectFrom('generation_tasks')
    .select([
      'kind',
      sql<string>`count(*) FILTER (WHERE status = 'queued')`.as('queued'),
      sql<string>`count(*) FILTER (WHERE status = 'processing')`.as('running'),
      sql<string>`count(*) FILTER (WHERE status = 'completed' AND finished_at > ${hourAgo})`.as('completed_hour'),
      sql<string>`count(*) FILTER (WHERE status = 'failed' AND finished_at > ${hourAgo})`.as('failed_hour'),
      sql<string>`count(*) FILTER (WHERE status = 'completed')`.as('completed_day'),
      sql<string>`count(*) FILTER (WHERE status = 'failed')`.as('failed_day'),
    ])
    .where((eb) => eb.or([eb('status', 'in', ['queued', 'processing']), eb('finished_at', '>', dayAgo)]))
    .groupBy('kind')
    .execute()
  return kinds.map((kind) => {
    const row = rows.find((r) => r.kind === kind)
    return {
      kind,
      queued: Number(row?.queued ?? 0),
      running: Number(row?.running ?? 0),
      completedLastHour: Number(row?.completed_hour ?? 0),
      failedLastHour: Number(row?.failed_hour ?? 0),
      completedLastDay: Number(row?.completed_day ?? 0),
      failedLastDay: Number(row?.failed_day ?? 0),
    }
  })
}

async function commonFailureReasons(db: DB) {
  const rows = await db
    .selectFrom('generation_tasks')
    .select([
      sql<string>`coalesce(error, '(no reason recorded)')`.as('reason'),
      (eb) => eb.fn.countAll<string>().as('count'),
    ])
    .where('status', '=', 'failed')
    .where('finished_at', '>', sql<Date>`now() - interval '1 day'`)
    .groupBy('error')
    .orderBy('count', 'desc')
    .limit(REASONS_SHOWN)
    .execute()
  return rows.map((row) => ({ reason: row.reason, count: Number(row.count) }))
}
