import { NoData } from '#app/analytics/no-data.tsx'
import type { FixReasonGroup } from '#domain/analytics/likeness-fixes.server.ts'

/** Likeness fixes per template or per provider, most-fixed first, each with what users said was off. */
export function FixReasons({ groups, groupName }: { groups: FixReasonGroup[]; groupName: string }) {
  if (groups.length === 0) return <NoData />
  return (
    <table className="fix-reasons">
      <thead>
        <tr>
          <th scope="col">{groupName}</th>
          <th scope="col">Fixes</th>
          <th scope="col">What was off</th>
        </tr>
      </thead>
      <tbody>
        {groups.map((group) => (
          <tr key={group.key ?? 'none'}>
            <th scope="row">{group.name}</th>
            <td>{group.fixes}</td>
            <td>{group.reasons.map((reason) => `${reason.label} ${reason.count}`).join(', ')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
