import type { LocationCount } from '#domain/analytics/grouping.server.ts'
import { NoData } from '#app/analytics/no-data.tsx'

export function VisitorRegions({ locations }: { locations: LocationCount[] }) {
  if (locations.length === 0) return <NoData />
  return (
    <table className="data">
      <thead>
        <tr>
          <th scope="col">Country</th>
          <th scope="col">City</th>
          <th scope="col">Visits</th>
        </tr>
      </thead>
      <tbody>
        {locations.map((location) => (
          <tr key={`${location.country}/${location.city}`}>
            <td>{location.country}</td>
            <td>{location.city}</td>
            <td>{location.count}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
