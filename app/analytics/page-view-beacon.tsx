import { useLocation } from '@remix-run/react'
import { useEffect, useRef } from 'react'
import { PAGE_VIEW_BEACON_PATH } from '#domain/analytics/page-view-path.ts'

/** Counts client-side navigations as page views; the first page was already counted by its document request. */
export function PageViewBeacon() {
  const { pathname } = useLocation()
  const lastCounted = useRef(pathname)
  useEffect(() => {
    if (lastCounted.current === pathname) return
    lastCounted.current = pathname
    sendPageViewBeacon(pathname)
  }, [pathname])
  return null
}

function sendPageViewBeacon(path: string) {
  const body = JSON.stringify({ path })
  // sendBeacon survives the page being closed; fetch is the fallback where it is missing or refuses.
  if (navigator.sendBeacon?.(PAGE_VIEW_BEACON_PATH, body)) return
  void fetch(PAGE_VIEW_BEACON_PATH, { method: 'POST', body, keepalive: true }).catch(() => {})
}
