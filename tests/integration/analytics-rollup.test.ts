import { sql } from 'kysely'
import { maintainAnalytics } from '#domain/analytics/maintenance.server.ts'
import { analyticsSummary } from '#domain/analytics/report.server.ts'
import { rollUpDay, withRollupLock } from '#domain/analytics/rollup.server.ts'
import { dashboardTotals, type TimeSpan } from '#domain/analytics/totals.server.ts'
import { dateRangeSchema, presetRange, toDateString } from '#domain/analytics/date-range.ts'
import { getDb } from '#platform/db.server.ts'
import { loader as overviewLoader } from '#app/routes/api.analytics.overview.ts'
import {
  daysAgo,
  expectedTotals,
  insertEvents,
  randomEvents,
  randomSource,
  type SeedEvent,
} from '#tests/helpers/analytics-events.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'

const DAY_MS = 24 * 60 * 60 * 1000
const now = new Date()
const today = toDateString(now)
const options = {
  countTypes: ['page_view', 'user_register', 'user_login', 'credit_purchase', 'api_call', 'image_generation'],
  perDayType: 'image_generation',
  locationLimit: 3,
} as const

const random = randomSource(17)
// Forty past days and today so far; seeded in the first test, grown by the later ones.
const events: SeedEvent[] = [
  ...randomEvents(random, 6000, daysAgo(now, 40), now),
  // On the very edges of days: the first and the last millisecond.
  ...[3, 4, 20].flatMap((days) =>
    [daysAgo(now, days), new Date(daysAgo(now, days - 1).getTime() - 1)].map((at) => ({
      type: 'image_generation',
      at,
      country: null,
      city: null,
      details: {},
    })),
  ),
]

async function actualTotals(span: TimeSpan) {
  const totals = await dashboardTotals(getDb(), span, options)
  return { ...totals, typeCounts: totals.typeCounts.sort((a, b) => (a.type < b.type ? -1 : 1)) }
}

/** Random spans over the seeded time (and a little beyond), most of them starting and ending mid-day. */
function randomSpans(count: number): TimeSpan[] {
  const from = daysAgo(now, 45).getTime()
  const to = now.getTime() + DAY_MS
  return Array.from({ length: count }, (_, index) => {
    let start = from + Math.floor(random() * (to - from))
    let end = start + Math.floor(random() * (to - start))
    if (index % 5 === 0) [start, end] = [start - (start % DAY_MS), end - (end % DAY_MS) + DAY_MS] // whole UTC days
    return { start: new Date(start), end: new Date(end) }
  })
}

async function expectExactOverRandomSpans(count: number) {
  for (const span of randomSpans(count)) {
    expect(await actualTotals(span), `${span.start.toISOString()} – ${span.end.toISOString()}`).toEqual(
      expectedTotals(events, span, options),
    )
  }
}

/** Every rollup row but the time it was written, in a stable order. */
async function rollupRows() {
  const db = getDb()
  return {
    days: await db
      .selectFrom('analytics_rollup_days')
      .select(['day', 'event_count', 'max_event_id'])
      .orderBy('day')
      .execute(),
    counts: await db.selectFrom('analytics_daily_counts').selectAll().orderBy('day').orderBy('type').execute(),
    methods: await db
      .selectFrom('analytics_daily_payment_methods')
      .selectAll()
      .orderBy('day')
      .orderBy('method')
      .execute(),
    places: await db
      .selectFrom('analytics_daily_locations')
      .selectAll()
      .orderBy('day')
      .orderBy('country')
      .orderBy('city')
      .execute(),
  }
}

const rolledDays = async () => (await rollupRows()).days.map((row) => row.day)

beforeAll(async () => {
  await insertEvents(events)
})

describe('daily rollups', () => {
  test('the first pass rolls up every past day, empty ones too, and never today', async () => {
    const result = await maintainAnalytics(getDb(), { detection: 'new-events', now })
    const firstDay = toDateString(daysAgo(now, 40))
    const expectedDays = Array.from({ length: 40 }, (_, index) =>
      toDateString(new Date(daysAgo(now, 40).getTime() + index * DAY_MS)),
    )
    expect(result?.rolledUp).toEqual(expectedDays)
    expect(await rolledDays()).toEqual(expectedDays)
    expect(expectedDays[0]).toBe(firstDay)
    expect(expectedDays).not.toContain(today)
    const { days } = await rollupRows()
    expect(days.reduce((total, day) => total + day.event_count, 0)).toBe(
      events.filter((event) => toDateString(event.at) < today).length,
    )
  })

  test('totals from rollups and raw edges equal the raw counts over random spans, mid-day edges included', async () => {
    await expectExactOverRandomSpans(60)
  })

  test('the page summary of the last 30 days reads the same as the raw events', async () => {
    const range = dateRangeSchema.parse(presetRange('month', now))
    const summary = await analyticsSummary(getDb(), range, 3)
    const expected = expectedTotals(events, range, options)
    expect(summary.counts.pageViews).toBe(expected.typeCounts.find((row) => row.type === 'page_view')?.count)
    expect(summary.imageGenerationsByDay).toHaveLength(31)
    expect(summary.imageGenerationsByDay.filter((day) => day.count > 0)).toEqual(expected.perDay)
    expect(summary.paymentMethods).toEqual(expected.paymentMethods)
    expect(summary.locations).toEqual(expected.locations)
  })

  test('rolling up again changes nothing: another pass finds no day to do, and recomputing a day gives its rows', async () => {
    const before = await rollupRows()
    expect((await maintainAnalytics(getDb(), { detection: 'fingerprints', now }))?.rolledUp).toEqual([])
    expect((await maintainAnalytics(getDb(), { detection: 'new-events', now }))?.rolledUp).toEqual([])
    for (const day of before.days.slice(0, 5)) await rollUpDay(getDb(), day.day)
    expect(await rollupRows()).toEqual(before)
  })

  test('a late event for a past day is found by the cron pass', async () => {
    const late: SeedEvent = {
      type: 'page_view',
      at: new Date(daysAgo(now, 5).getTime() + 1000),
      country: 'JP',
      city: 'Tokyo',
      details: {},
    }
    await insertEvents([late])
    events.push(late)
    const result = await maintainAnalytics(getDb(), { detection: 'new-events', now })
    expect(result?.rolledUp).toEqual([toDateString(late.at)])
    await expectExactOverRandomSpans(15)
  })

  test('an import of older days is rolled up, with the empty days between', async () => {
    const imported = randomEvents(random, 200, daysAgo(now, 60), daysAgo(now, 58))
    await insertEvents(imported)
    events.push(...imported)
    const result = await maintainAnalytics(getDb(), { detection: 'new-events', now })
    expect(result?.rolledUp).toEqual(
      Array.from({ length: 20 }, (_, index) => toDateString(new Date(daysAgo(now, 60).getTime() + index * DAY_MS))),
    )
    const span = { start: daysAgo(now, 61), end: now }
    expect(await actualTotals(span)).toEqual(expectedTotals(events, span, options))
  })

  test('events gone from a day (a restore of an older backup) are found by the fingerprint pass', async () => {
    const day = daysAgo(now, 12)
    await sql`DELETE FROM analytics_events WHERE created_at >= ${day} AND created_at < ${new Date(day.getTime() + DAY_MS / 2)}`.execute(
      getDb(),
    )
    events.splice(
      0,
      events.length,
      ...events.filter((event) => !(event.at >= day && event.at.getTime() < day.getTime() + DAY_MS / 2)),
    )
    expect((await maintainAnalytics(getDb(), { detection: 'new-events', now }))?.rolledUp).toEqual([])
    expect((await maintainAnalytics(getDb(), { detection: 'fingerprints', now }))?.rolledUp).toEqual([
      toDateString(day),
    ])
    await expectExactOverRandomSpans(15)
  })

  test('a pass does nothing while another one runs, and the lock is free again afterwards', async () => {
    const nested = await withRollupLock(getDb(), () => maintainAnalytics(getDb(), { detection: 'new-events', now }))
    expect(nested).toBeNull()
    expect(await maintainAnalytics(getDb(), { detection: 'new-events', now })).toEqual({
      rolledUp: [],
      retention: null,
    })
  })
})

describe('raw-event retention', () => {
  let token: string
  const overview = async (startDate: string, endDate: string) =>
    (await callRoute(
      overviewLoader,
      makeRequest(`/api/analytics/overview?startDate=${startDate}&endDate=${endDate}`, { token }),
    ).then((response) => response.json())) as Record<string, unknown>

  beforeAll(async () => {
    token = (await createTestUser({ role: 'superadmin' })).token
    // Enough old page views for the deletion to take several batches.
    const old = randomEvents(random, 12_000, daysAgo(now, 38), daysAgo(now, 30)).map((event) => ({
      ...event,
      type: 'page_view',
    }))
    await insertEvents(old)
    events.push(...old)
    await maintainAnalytics(getDb(), { detection: 'new-events', now })
  })

  test('deletes the rolled-up raw events older than the retention; the totals keep the full history', async () => {
    const span = { start: daysAgo(now, 70), end: now }
    const before = await actualTotals(span)
    expect(before).toEqual(expectedTotals(events, span, options))

    const result = await maintainAnalytics(getDb(), { detection: 'new-events', now, retentionDays: 10 })
    const keptSince = toDateString(daysAgo(now, 10))
    const olderEvents = events.filter((event) => event.at < daysAgo(now, 10)).length
    expect(result?.retention).toEqual({ keptSince, deleted: olderEvents, done: true })
    const { oldest } = await getDb()
      .selectFrom('analytics_events')
      .select((eb) => eb.fn.min('created_at').as('oldest'))
      .executeTakeFirstOrThrow()
    expect(new Date(oldest as Date).getTime()).toBeGreaterThanOrEqual(daysAgo(now, 10).getTime())
    expect(await actualTotals(span)).toEqual(before)

    // The frozen days are not "changed" for lack of raw events, and the page summary still has them.
    expect((await maintainAnalytics(getDb(), { detection: 'fingerprints', now }))?.rolledUp).toEqual([])
    const summary = await analyticsSummary(getDb(), dateRangeSchema.parse(presetRange('month', now)))
    expect(summary.counts.pageViews).toBe(
      events.filter((event) => event.type === 'page_view' && event.at >= daysAgo(now, 30)).length,
    )
  })

  test('a time budget stops the deletion between batches; the next pass goes on', async () => {
    const extra = randomEvents(random, 3000, daysAgo(now, 9), daysAgo(now, 8))
    await insertEvents(extra)
    events.push(...extra)
    await maintainAnalytics(getDb(), { detection: 'new-events', now })
    const later = new Date(now.getTime() + DAY_MS * 2)
    const stopped = await maintainAnalytics(getDb(), {
      detection: 'new-events',
      now: later,
      retentionDays: 10,
      retentionBudgetMs: 0,
    })
    expect(stopped?.retention).toMatchObject({ deleted: 0, done: false })
    const finished = await maintainAnalytics(getDb(), { detection: 'new-events', now: later, retentionDays: 10 })
    expect(finished?.retention?.done).toBe(true)
    expect(finished?.retention?.deleted).toBe(
      events.filter((event) => event.at >= daysAgo(now, 10) && event.at < daysAgo(now, 8)).length,
    )
  })

  test('the overview answers records only from the first kept day, and says so', async () => {
    const keptSince = toDateString(daysAgo(now, 8))
    const start = toDateString(daysAgo(now, 20))
    const cut = await overview(start, today)
    expect(cut.recordsFrom).toBe(keptSince)
    const pageViews = cut.pageViews as Array<{ createdAt: string }>
    expect(pageViews).toHaveLength(
      events.filter((event) => event.type === 'page_view' && event.at >= daysAgo(now, 8)).length,
    )
    expect(pageViews.every((record) => record.createdAt >= keptSince)).toBe(true)

    const inside = await overview(keptSince, today)
    expect(inside).not.toHaveProperty('recordsFrom')
    expect(inside.pageViews).toEqual(pageViews)

    const before = await overview(toDateString(daysAgo(now, 30)), toDateString(daysAgo(now, 20)))
    expect(before).toMatchObject({ recordsFrom: keptSince, pageViews: [], locations: [] })
  })
})
