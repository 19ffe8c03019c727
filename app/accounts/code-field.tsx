import { useEffect, useState } from 'react'
import { RESEND_CODE_SECONDS } from '#domain/accounts/account-schemas.ts'
import { useHydrated } from '#app/hooks/use-hydrated.ts'

/**
 * A submit button that asks the server for an email code (name=intent, so it works without
 * JavaScript), then counts down the 60 s before another may be asked for. `sentAt` is the server's
 * timestamp of the last code sent. Without JavaScript nothing can count down, so the button stays
 * enabled and the server's own limit answers a too-early resend.
 */
export function SendCodeButton({ sentAt, value }: { sentAt?: number; value: string }) {
  const remaining = useSecondsLeft(sentAt ? sentAt + RESEND_CODE_SECONDS * 1000 : undefined)
  return (
    <button type="submit" name="intent" value={value} className="button secondary send-code" disabled={remaining > 0}>
      {remaining > 0 ? `Resend in ${remaining}s` : sentAt ? 'Resend Code' : 'Send Code'}
    </button>
  )
}

function useSecondsLeft(endsAt: number | undefined) {
  const hydrated = useHydrated()
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!endsAt) return
    const timer = setInterval(() => {
      const time = Date.now()
      setNow(time)
      if (time >= endsAt) clearInterval(timer)
    }, 250)
    return () => clearInterval(timer)
  }, [endsAt])
  if (!hydrated || !endsAt) return 0
  // Clamped: the server's clock and this one may disagree a little.
  return Math.min(RESEND_CODE_SECONDS, Math.max(0, Math.ceil((endsAt - now) / 1000)))
}
