import type { ConsumptionRow } from '#domain/user-management/user-admin.server.ts'
import { zhUserManagement as t } from '#app/user-management/zh-user-management.ts'
import { formatTime } from '#app/user-management/format.ts'
import { type Column, DataTable } from '#app/user-management/data-table.tsx'

const columns: Column<ConsumptionRow>[] = [
  { header: t.ranking.rank, cell: (_, index) => index + 1 },
  { header: t.ranking.name, cell: (row) => row.name },
  { header: t.ranking.email, cell: (row) => row.email },
  { header: t.ranking.totalSpent, cell: (row) => row.totalSpent },
  { header: t.ranking.credits, cell: (row) => row.credits },
  { header: t.ranking.lastLogin, cell: (row) => formatTime(row.lastLogin) },
]

export function RankingTable({ rows }: { rows: ConsumptionRow[] }) {
  return (
    <section className="card user-section" aria-labelledby="ranking-title">
      <h2 id="ranking-title">{t.ranking.title}</h2>
      <DataTable rows={rows} columns={columns} empty={t.ranking.empty} />
    </section>
  )
}
