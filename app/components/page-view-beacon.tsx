import { useLocation } from '@remix-run/react'
import { useEffect, useRef } from 'react'
import { sendPageViewBeacon } from '#app/features/analytics/beacon.ts'

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
