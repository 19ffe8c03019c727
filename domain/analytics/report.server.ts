import { type RawBuilder, sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'
import { type DateRange, daysOf } from '#domain/analytics/date-range.ts'
import type { AnalyticsEventType } from '#domain/analytics/events.server.ts'
import { cityLabel, countryLabel, type LocationCount } from '#domain/analytics/grouping.server.ts'
import { dashboardTotals } from '#domain/analytics/totals.server.ts'

/**
 * Reading the analytics events of a date range. Every query filters on (type, created_at), which
 * the index analytics_events_type_created_idx answers; page-view locations come from a covering
 * partial index (migration 0005), so none of them reads the table itself.
 */

/** The dashboard's six stat cards, each the count of one event type. */
const countedCards = {
  pageViews: 'page_view',
  userRegisters: 'user_register',
  userLogins: 'user_login',
  creditPurchases: 'credit_purchase',
  apiCalls: 'api_call',
  imageGenerations: 'image_generation',
} as const satisfies Record<keyof AnalyticsSummary['counts'], AnalyticsEventType>

/** The overview's arrays of plain `{ createdAt }` records, by answer field: the cards' events and template uses. */
const recordArrays = { ...countedCards, templateUses: 'template_use' } as const satisfies Record<
  string,
  AnalyticsEventType
>

const isoCreatedAt = sql<string>`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

function eventsOfType(db: DB, type: AnalyticsEventType, range: DateRange) {
  return db
    .selectFrom('analytics_events')
    .where('type', '=', type)
    .where('created_at', '>=', range.start)
    .where('created_at', '<', range.end)
}

/**
 * One type's records as JSON array text. A busy month holds tens of thousands of page views and API
 * calls, so PostgreSQL writes the JSON itself: Node neither builds nor re-serialises those objects.
 * The text holds only fixed keys and digits, so concatenating it is safe.
 */
function createdAtRecordsJson(db: DB, type: AnalyticsEventType, range: DateRange): RawBuilder<string> {
  const records = eventsOfType(db, type, range).select(
    sql<string>`'[' || coalesce(string_agg('{"createdAt":"' || ${isoCreatedAt} || '"}', ',' ORDER BY created_at), '') || ']'`.as(
      'json',
    ),
  )
  return sql<string>`(${records})`
}

export interface PaymentRecord {
  createdAt: string
  details: { paymentMethod: string | null; amount: number | null }
}

async function paymentRecords(db: DB, range: DateRange): Promise<PaymentRecord[]> {
  const rows = await eventsOfType(db, 'payment', range)
    .select([
      isoCreatedAt.as('createdAt'),
      sql<string | null>`details->>'paymentMethod'`.as('paymentMethod'),
      sql<number | null>`CASE WHEN jsonb_typeof(details->'amount') = 'number' THEN (details->>'amount')::float8 END`.as(
        'amount',
      ),
    ])
    .orderBy('created_at')
    .execute()
  return rows.map(({ createdAt, paymentMethod, amount }) => ({ createdAt, details: { paymentMethod, amount } }))
}

/** Page views per place, busiest first; missing country or city reads Unknown. */
function locationCounts(db: DB, range: DateRange, limit?: number): Promise<LocationCount[]> {
  const country = countryLabel
  const city = cityLabel
  let query = eventsOfType(db, 'page_view', range)
    .select([country.as('country'), city.as('city'), (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy([country, city])
    .orderBy('count', 'desc')
    .orderBy('country')
    .orderBy('city')
  if (limit !== undefined) query = query.limit(limit)
  return query.execute()
}

/**
 * The body of GET /api/analytics/overview as JSON text: the ten arrays of the spec, records trimmed
 * to createdAt (plus details.paymentMethod and details.amount for payments). `recordsFrom`, when
 * raw-event retention cut the range short, is added as the date the answer covers from.
 */
export async function analyticsOverviewJson(
  db: DB,
  range: DateRange,
  recordsFrom: string | null = null,
): Promise<string> {
  const fields = Object.entries(recordArrays).map(([field, type]) => createdAtRecordsJson(db, type, range).as(field))
  const [arrays, payments, locations] = await Promise.all([
    db.selectNoFrom(fields).executeTakeFirstOrThrow() as Promise<Record<string, string>>,
    paymentRecords(db, range),
    locationCounts(db, range),
  ])
  const paymentsJson = JSON.stringify(payments)
  const parts = [
    ...Object.keys(recordArrays).map((field) => `"${field}":${arrays[field]}`),
    `"paymentMethods":${paymentsJson}`,
    `"paymentAmounts":${paymentsJson}`,
    `"locations":${JSON.stringify(locations)}`,
    ...(recordsFrom === null ? [] : [`"recordsFrom":${JSON.stringify(recordsFrom)}`]),
  ]
  return `{${parts.join(',')}}`
}

/** What the /analytics page shows: counts for the cards, and the three sections already grouped. */
export interface AnalyticsSummary {
  counts: Record<
    'pageViews' | 'userRegisters' | 'userLogins' | 'creditPurchases' | 'apiCalls' | 'imageGenerations',
    number
  >
  imageGenerationsByDay: Array<{ date: string; count: number }>
  paymentMethods: Array<{ method: string; count: number }>
  locations: LocationCount[]
}

/** Full history: whole days come from the daily rollups, the rest from raw events (dashboardTotals). */
export async function analyticsSummary(db: DB, range: DateRange, locationLimit = 50): Promise<AnalyticsSummary> {
  const totals = await dashboardTotals(db, range, {
    countTypes: Object.values(countedCards),
    perDayType: 'image_generation',
    locationLimit,
  })
  const countOf = (type: AnalyticsEventType) => totals.typeCounts.find((row) => row.type === type)?.count ?? 0
  const perDayCount = new Map(totals.perDay.map((row) => [row.date, row.count]))
  return {
    counts: Object.fromEntries(
      Object.entries(countedCards).map(([card, type]) => [card, countOf(type)]),
    ) as AnalyticsSummary['counts'],
    imageGenerationsByDay: daysOf(range).map((date) => ({ date, count: perDayCount.get(date) ?? 0 })),
    paymentMethods: totals.paymentMethods,
    locations: totals.locations,
  }
}
