import { sql } from 'kysely'
import { enqueueJob } from '#platform/jobs.server.ts'
import { getDb } from '#platform/db.server.ts'
import { toDateString } from '#domain/analytics/date-range.ts'
import { crontab } from '#worker/jobs/index.ts'
import { daysAgo, insertEvents, randomEvents, randomSource } from '#tests/helpers/analytics-events.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'

/** The rollup cron in the real worker process, with retention on. */

test('the worker rolls up the past days and deletes raw events past ANALYTICS_RAW_RETENTION_DAYS', async () => {
  expect(crontab).toMatch(/^\S+ \S+ \* \* \* rollup_analytics$/m)
  const now = new Date()
  const events = randomEvents(randomSource(7), 3000, daysAgo(now, 20), now)
  await insertEvents(events)

  const worker = startWorker({ ANALYTICS_RAW_RETENTION_DAYS: '7' })
  try {
    await worker.ready()
    await enqueueJob(getDb(), 'rollup_analytics', {})
    const state = await waitFor(async () => {
      const row = await getDb().selectFrom('analytics_rollup_state').selectAll().executeTakeFirstOrThrow()
      return row.raw_events_since ? row : null
    })
    expect(state.raw_events_since).toBe(toDateString(daysAgo(now, 7)))
    // Done when the job has left the queue (a finished job is deleted).
    await waitFor(async () => {
      const { rows } = await sql<{ count: number }>`
        SELECT count(*)::int AS count FROM graphile_worker.jobs WHERE task_identifier = 'rollup_analytics'
      `.execute(getDb())
      return rows[0].count === 0
    })
  } finally {
    await worker.stop()
  }

  const days = await getDb().selectFrom('analytics_rollup_days').select(['day', 'event_count']).orderBy('day').execute()
  expect(days.map((row) => row.day)).toEqual(
    Array.from({ length: 20 }, (_, index) => toDateString(daysAgo(now, 20 - index))),
  )
  expect(days.reduce((total, row) => total + row.event_count, 0)).toBe(
    events.filter((event) => event.at < daysAgo(now, 0)).length,
  )
  const raw = await getDb()
    .selectFrom('analytics_events')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow()
  expect(raw.count).toBe(events.filter((event) => event.at >= daysAgo(now, 7)).length)
})
