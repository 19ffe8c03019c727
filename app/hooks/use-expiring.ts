import { useEffect, useState } from 'react'

/**
 * `value` until `ms` after it arrived, then null: for success messages, which vanish after 3
 * seconds. Pass something new for every submission (the action data), not just its text.
 */
export function useExpiring<T>(value: T | null | undefined, ms = 3000): T | null {
  const [expired, setExpired] = useState<T | null>(null)
  useEffect(() => {
    if (value == null) return
    const timer = setTimeout(() => setExpired(value), ms)
    return () => clearTimeout(timer)
  }, [value, ms])
  return value != null && value !== expired ? value : null
}
