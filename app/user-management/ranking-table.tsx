import type { ConsumptionRow } from '#domain/user-management/user-admin.server.ts'
import { zhUserManagement as t } from '#app/user-management/zh-user-management.ts'
import { formatTime } from '#app/user-management/format.ts'

export function RankingTable({ rows }: { rows: ConsumptionRow[] }) {
  return (
    <section className="card user-section" aria-labelledby="ranking-title">
      <h2 id="ranking-title">{t.ranking.title}</h2>
      {rows.length === 0 ? (
        <p className="muted">{t.ranking.empty}</p>
      ) : (
        <div className="table-scroll">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">{t.ranking.rank}</th>
                <th scope="col">{t.ranking.name}</th>
                <th scope="col">{t.ranking.email}</th>
                <th scope="col">{t.ranking.totalSpent}</th>
                <th scope="col">{t.ranking.credits}</th>
                <th scope="col">{t.ranking.lastLogin}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row, index) => (
                <tr key={row.id}>
                  <td>{index + 1}</td>
                  <td>{row.name}</td>
                  <td>{row.email}</td>
                  <td>{row.totalSpent}</td>
                  <td>{row.credits}</td>
                  <td>{formatTime(row.lastLogin)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}
