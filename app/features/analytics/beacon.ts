/** Where the browser reports client-side navigations as page views (document requests are counted on the server). */
export const PAGE_VIEW_BEACON_PATH = '/api/analytics/pageview'

export function sendPageViewBeacon(path: string) {
  const body = JSON.stringify({ path })
  // sendBeacon survives the page being closed; fetch is the fallback where it is missing or refuses.
  if (navigator.sendBeacon?.(PAGE_VIEW_BEACON_PATH, body)) return
  void fetch(PAGE_VIEW_BEACON_PATH, { method: 'POST', body, keepalive: true }).catch(() => {})
}
