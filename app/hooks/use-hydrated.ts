import { startTransition, useEffect, useState } from 'react'

/** Set once the page's first render in the browser has committed: later mounts start hydrated. */
let pageHydrated = false

/**
 * False on the server and during hydration, true afterwards: for parts that only work in the browser.
 * The switch after hydration is a transition, so re-rendering what depends on it (on /generate, the
 * whole form) runs in short slices instead of one long task at start-up (issue 42).
 */
export function useHydrated() {
  const [hydrated, setHydrated] = useState(pageHydrated)
  useEffect(() => {
    pageHydrated = true
    if (!hydrated) startTransition(() => setHydrated(true))
  }, [hydrated])
  return hydrated
}
