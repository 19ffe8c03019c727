/**
 * Fly's http_service check: the web process answers. It never touches the database, so that a
 * database failover does not take every web machine out of rotation (visitors then get the app's
 * own 503 page rather than the proxy's error). /readyz checks the database and storage.
 */
export function loader() {
  return new Response('ok', { headers: { 'Cache-Control': 'no-store' } })
}
