export function NoData() {
  return <p className="muted no-data">No data available</p>
}
