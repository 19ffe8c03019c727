import { sql } from 'kysely'

/**
 * How the dashboard labels what it groups: a payment by its method, a page view by its place. One
 * definition for the raw-event queries and the daily rollups, so both group alike.
 */

const UNKNOWN = 'Unknown'
const OTHER_PAYMENT_METHOD = 'Other'

export const countryLabel = sql<string>`coalesce(country, ${sql.lit(UNKNOWN)})`
export const cityLabel = sql<string>`coalesce(city, ${sql.lit(UNKNOWN)})`
export const paymentMethodLabel = sql<string>`coalesce(nullif(details->>'paymentMethod', ''), ${sql.lit(OTHER_PAYMENT_METHOD)})`

/** The dashboard's day of an event: its UTC calendar date. */
export const eventDay = sql<string>`(created_at AT TIME ZONE 'UTC')::date`

/** Page views from one place. */
export interface LocationCount {
  country: string
  city: string
  count: number
}
