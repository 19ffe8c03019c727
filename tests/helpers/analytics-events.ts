import { getDb } from '#platform/db.server.ts'
// The offline renderer's seeded generator (mulberry32), so that a failure can be replayed.
export { seededRandom as randomSource } from '#worker/providers/image/local/svg.ts'

/**
 * Random analytics events for the rollup tests, and the dashboard's totals computed from them in
 * plain TypeScript: a reference that shares no SQL with the code under test.
 */

const DAY_MS = 24 * 60 * 60 * 1000

export interface SeedEvent {
  type: string
  at: Date
  country: string | null
  city: string | null
  details: Record<string, unknown>
}

// Labels chosen to sort alike in the C and in the linguistic collations (ties are ordered by name).
const countries = ['DE', 'FR', 'GB', 'JP', null]
const cities = ['Berlin', 'London', 'Paris', 'Tokyo', null]
const methods = ['paypal_me', 'usdt_trc20', 'usdt_erc20', '', undefined]
const types = [
  'page_view',
  'page_view',
  'page_view',
  'api_call',
  'api_call',
  'user_login',
  'user_register',
  'image_generation',
  'template_use',
  'credit_purchase',
  'payment',
]

/** `count` events at random instants in [from, to), millisecond precision. */
export function randomEvents(random: () => number, count: number, from: Date, to: Date): SeedEvent[] {
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]
  return Array.from({ length: count }, () => {
    const type = pick(types)
    const method = pick(methods)
    return {
      type,
      at: new Date(from.getTime() + Math.floor(random() * (to.getTime() - from.getTime()))),
      country: pick(countries),
      city: pick(cities),
      details: type === 'payment' && method !== undefined ? { paymentMethod: method, amount: 5 } : {},
    }
  })
}

export async function insertEvents(events: SeedEvent[]) {
  for (let i = 0; i < events.length; i += 2000) {
    await getDb()
      .insertInto('analytics_events')
      .values(
        events.slice(i, i + 2000).map((event) => ({
          type: event.type,
          created_at: event.at,
          country: event.country,
          city: event.city,
          details: JSON.stringify(event.details),
        })),
      )
      .execute()
  }
}

const tally = <Key extends string>(keys: Key[]) => {
  const counts = new Map<Key, number>()
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1)
  return counts
}

/** What dashboardTotals must answer for these events over [start, end). */
export function expectedTotals(
  events: SeedEvent[],
  span: { start: Date; end: Date },
  options: { countTypes: readonly string[]; perDayType: string; locationLimit?: number },
) {
  const inSpan = events.filter((event) => event.at >= span.start && event.at < span.end)
  const ofType = (type: string) => inSpan.filter((event) => event.type === type)
  const byCountThenName =
    <T extends { count: number }>(name: (row: T) => string) =>
    (a: T, b: T) =>
      b.count - a.count || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0)

  const typeCounts = [...tally(inSpan.map((event) => event.type))]
    .filter(([type]) => options.countTypes.includes(type))
    .map(([type, count]) => ({ type, count }))
    .sort((a, b) => (a.type < b.type ? -1 : 1))
  const perDay = [...tally(ofType(options.perDayType).map((event) => event.at.toISOString().slice(0, 10)))]
    .map(([date, count]) => ({ date, count }))
    .sort((a, b) => (a.date < b.date ? -1 : 1))
  const paymentMethods = [
    ...tally(ofType('payment').map((event) => (event.details.paymentMethod as string | undefined) || 'Other')),
  ]
    .map(([method, count]) => ({ method, count }))
    .sort(byCountThenName((row) => row.method))
  const locations = [
    ...tally(ofType('page_view').map((event) => `${event.country ?? 'Unknown'}|${event.city ?? 'Unknown'}`)),
  ]
    .map(([place, count]) => ({ country: place.split('|')[0], city: place.split('|')[1], count }))
    .sort(byCountThenName((row) => `${row.country}\u0000${row.city}`))
    .slice(0, options.locationLimit)
  return { typeCounts, perDay, paymentMethods, locations }
}

export const daysAgo = (now: Date, days: number) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - days * DAY_MS)
