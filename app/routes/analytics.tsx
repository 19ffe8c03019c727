import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useLoaderData, useNavigation } from '@remix-run/react'
import { z } from 'zod'
import { GenerationChart } from '#app/analytics/generation-chart.tsx'
import { NoData } from '#app/analytics/no-data.tsx'
import { PaymentMethods } from '#app/analytics/payment-methods.tsx'
import { RangeControls } from '#app/analytics/range-controls.tsx'
import { StatCards } from '#app/analytics/stat-cards.tsx'
import { VisitorRegions } from '#app/analytics/visitor-regions.tsx'
import { type AnalyticsSummary, analyticsSummary } from '#domain/analytics/report.server.ts'
import { likenessFixReasons, type LikenessFixReasons } from '#domain/analytics/likeness-fixes.server.ts'
import { FixReasons } from '#app/analytics/fix-reasons.tsx'
import { providerUsage, type ProviderUsage } from '#domain/analytics/provider-usage.server.ts'
import { ProviderUsageTables } from '#app/analytics/provider-usage.tsx'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { dateRangeSchema, presetRange, rangePresets } from '#domain/analytics/date-range.ts'
import { getDb } from '#platform/db.server.ts'

export const meta: MetaFunction = () => [{ title: 'Analytics — Pawtrait' }]

const FAILED = 'Failed to retrieve analytics data, please try again later'
const DEFAULT_PRESET = 'week'

type PageData = {
  startDate: string
  endDate: string
  preset: (typeof rangePresets)[number] | null
  summary: AnalyticsSummary | null
  /** Likeness fix reasons per template, with the summary. */
  fixReasons?: LikenessFixReasons
  /** Images per provider and failovers per day, with the summary. */
  providers?: ProviderUsage
  error: string | null
}

/**
 * Guests go to /login and other roles to / (the permissions table). Statistics are loaded only for a submitted
 * range (Refresh Data); a bare visit or a range button without JavaScript only fills the dates.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  await requirePermission(request, 'viewAnalytics')
  const params = new URL(request.url).searchParams
  const preset = z.enum(rangePresets).safeParse(params.get('range'))
  if (preset.success || !params.has('startDate')) {
    const chosen = preset.success ? preset.data : DEFAULT_PRESET
    return json<PageData>({ ...presetRange(chosen), preset: chosen, summary: null, error: null })
  }

  const submitted = { startDate: params.get('startDate') ?? '', endDate: params.get('endDate') ?? '', preset: null }
  const range = dateRangeSchema.safeParse(Object.fromEntries(params))
  if (!range.success) {
    return json<PageData>({ ...submitted, summary: null, error: range.error.issues[0].message }, { status: 400 })
  }
  try {
    const [summary, fixReasons, providers] = await Promise.all([
      analyticsSummary(getDb(), range.data),
      likenessFixReasons(getDb(), range.data),
      providerUsage(getDb(), range.data),
    ])
    return json<PageData>({ ...submitted, summary, fixReasons, providers, error: null })
  } catch (error) {
    console.error('[analytics] summary failed:', error)
    return json<PageData>({ ...submitted, summary: null, error: FAILED }, { status: 500 })
  }
}

export default function AnalyticsPage() {
  const data = useLoaderData<typeof loader>()
  const navigation = useNavigation()
  const loading = navigation.state === 'loading' && navigation.location.pathname === '/analytics'

  return (
    <div className="analytics">
      <h1>Analytics</h1>
      <RangeControls
        key={`${data.startDate}|${data.endDate}|${data.preset}`}
        startDate={data.startDate}
        endDate={data.endDate}
        preset={data.preset}
        loading={loading}
      />
      {data.error ? (
        <p className="form-error" role="alert">
          {data.error}
        </p>
      ) : null}
      {data.summary ? (
        <>
          <Statistics summary={data.summary} />
          <section className="card analytics-section" aria-labelledby="fix-heading">
            <h2 id="fix-heading">Likeness Fixes by Template</h2>
            <FixReasons groups={data.fixReasons?.byTemplate ?? []} groupName="Template" />
          </section>
          <section className="card analytics-section" aria-labelledby="fix-provider-heading">
            <h2 id="fix-provider-heading">Likeness Fixes by Provider</h2>
            <FixReasons groups={data.fixReasons?.byProvider ?? []} groupName="Provider" />
          </section>
          {data.providers ? (
            <section className="card analytics-section" aria-labelledby="providers-heading">
              <h2 id="providers-heading">Image Providers</h2>
              <ProviderUsageTables usage={data.providers} />
            </section>
          ) : null}
        </>
      ) : data.error ? null : (
        <p className="muted">Choose a time range and press Refresh Data to load the statistics.</p>
      )}
    </div>
  )
}

function Statistics({ summary }: { summary: AnalyticsSummary }) {
  const generations = summary.imageGenerationsByDay.reduce((total, day) => total + day.count, 0)
  return (
    <>
      <StatCards counts={summary.counts} />
      <section className="card analytics-section" aria-labelledby="generation-heading">
        <h2 id="generation-heading">Image Generation Statistics</h2>
        {generations > 0 ? <GenerationChart days={summary.imageGenerationsByDay} /> : <NoData />}
      </section>
      <div className="analytics-columns">
        <section className="card analytics-section" aria-labelledby="payment-heading">
          <h2 id="payment-heading">Payment Method Statistics</h2>
          <PaymentMethods methods={summary.paymentMethods} />
        </section>
        <section className="card analytics-section" aria-labelledby="region-heading">
          <h2 id="region-heading">Visitor Region Statistics</h2>
          <VisitorRegions locations={summary.locations} />
        </section>
      </div>
    </>
  )
}
