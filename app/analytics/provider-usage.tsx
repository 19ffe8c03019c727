import type { ProviderUsage } from '#domain/analytics/provider-usage.server.ts'
import { NoData } from './no-data.tsx'

/** Versions per provider and model, and failovers per day (docs/decisions/0033). */
export function ProviderUsageTables({ usage }: { usage: ProviderUsage }) {
  return (
    <>
      <h3>Versions per provider</h3>
      {usage.versions.length === 0 ? (
        <NoData />
      ) : (
        <table className="fix-reasons">
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col">Model</th>
              <th scope="col">Versions</th>
            </tr>
          </thead>
          <tbody>
            {usage.versions.map((row) => (
              <tr key={`${row.provider}|${row.model}`}>
                <th scope="row">{row.provider ?? 'Not recorded'}</th>
                <td>{row.model ?? '—'}</td>
                <td>{row.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Failovers per day</h3>
      {usage.failoversByDay.length === 0 ? (
        <p className="muted">No version had to move to another provider.</p>
      ) : (
        <table className="fix-reasons">
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              <th scope="col">Failovers</th>
              <th scope="col">Reasons</th>
            </tr>
          </thead>
          <tbody>
            {usage.failoversByDay.map((day) => (
              <tr key={day.date}>
                <th scope="row">{day.date}</th>
                <td>{day.count}</td>
                <td>{day.reasons}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  )
}
