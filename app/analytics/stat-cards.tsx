import type { AnalyticsSummary } from '#domain/analytics/report.server.ts'

const cards: Array<[keyof AnalyticsSummary['counts'], string]> = [
  ['pageViews', 'Website Visits'],
  ['userRegisters', 'Registered Users'],
  ['userLogins', 'Logged-in Users'],
  ['creditPurchases', 'Recharge Users'],
  ['apiCalls', 'API Calls'],
  ['imageGenerations', 'Image Generations'],
]

export function StatCards({ counts }: { counts: AnalyticsSummary['counts'] }) {
  return (
    <ul className="stat-cards" aria-label="Totals for the range">
      {cards.map(([key, label]) => (
        <li key={key} className="card stat-card">
          <span className="stat-label">{label}</span>
          <strong className="stat-value">{counts[key].toLocaleString('en-US')}</strong>
        </li>
      ))}
    </ul>
  )
}
