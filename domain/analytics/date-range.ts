import { z } from 'zod'

/** The dashboard counts whole UTC days; its ranges are written as inclusive YYYY-MM-DD dates. */

const DAY_MS = 24 * 60 * 60 * 1000
const MAX_RANGE_DAYS = 400

export const rangePresets = ['day', 'week', 'month', 'year'] as const
export type RangePreset = (typeof rangePresets)[number]

export const toDateString = (date: Date) => date.toISOString().slice(0, 10)

const startOfDay = (dateString: string) => new Date(`${dateString}T00:00:00.000Z`)

/** The spec's ranges, all ending today: day = today only, week = 7 days back, month = 30 days back, year = one year back. */
export function presetRange(preset: RangePreset, now = new Date()) {
  const endDate = toDateString(now)
  const start = startOfDay(endDate)
  if (preset === 'week') start.setUTCDate(start.getUTCDate() - 7)
  if (preset === 'month') start.setUTCDate(start.getUTCDate() - 30)
  if (preset === 'year') start.setUTCFullYear(start.getUTCFullYear() - 1)
  return { startDate: toDateString(start), endDate }
}

export interface DateRange {
  startDate: string
  endDate: string
  /** Inclusive lower bound. */
  start: Date
  /** Exclusive upper bound: midnight after endDate. */
  end: Date
  days: number
}

const requiredMessage = 'startDate and endDate are required, as YYYY-MM-DD'
const formatMessage = 'Dates must be real calendar dates in YYYY-MM-DD format'

const dateString = z
  .string({ required_error: requiredMessage, invalid_type_error: requiredMessage })
  .regex(/^\d{4}-\d{2}-\d{2}$/, formatMessage)
  // Rejects 2026-02-30 and the like, which Date would silently roll over.
  .refine(
    (value) => !Number.isNaN(startOfDay(value).getTime()) && toDateString(startOfDay(value)) === value,
    formatMessage,
  )

export const dateRangeSchema = z
  .object({ startDate: dateString, endDate: dateString })
  .transform(({ startDate, endDate }, ctx): DateRange => {
    const start = startOfDay(startDate)
    const end = new Date(startOfDay(endDate).getTime() + DAY_MS)
    const days = Math.round((end.getTime() - start.getTime()) / DAY_MS)
    if (days < 1) ctx.addIssue({ code: 'custom', message: 'endDate must not be before startDate' })
    if (days > MAX_RANGE_DAYS) {
      ctx.addIssue({ code: 'custom', message: `The date range can span at most ${MAX_RANGE_DAYS} days` })
    }
    return { startDate, endDate, start, end, days }
  })

/** Every day of the range, as YYYY-MM-DD. */
export function daysOf(range: Pick<DateRange, 'start' | 'days'>) {
  return Array.from({ length: range.days }, (_, index) =>
    toDateString(new Date(range.start.getTime() + index * DAY_MS)),
  )
}
