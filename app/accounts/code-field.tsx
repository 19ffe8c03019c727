import { type FieldMetadata } from '@conform-to/react'
import { useEffect, useState } from 'react'
import { TextField } from '#app/components/text-field.tsx'
import { RESEND_CODE_SECONDS } from '#domain/accounts/account-schemas.ts'
import { useExpiring } from '#app/hooks/use-expiring.ts'
import { useHydrated } from '#app/hooks/use-hydrated.ts'

interface CodeFieldProps {
  meta: FieldMetadata<unknown, Record<string, unknown>, string[]>
  label: string
  /** The intent its Send Code button submits. */
  sendIntent: string
  sentAt?: number
}

/** The six-digit email code's input, with the button that asks for a code. */
export function CodeField({ meta, label, sendIntent, sentAt }: CodeFieldProps) {
  return (
    <TextField
      meta={meta}
      label={label}
      type="text"
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={6}
      addon={<SendCodeButton value={sendIntent} sentAt={sentAt} />}
    />
  )
}

/** "A code was sent" for 3 seconds after the action that sent it. */
export function CodeSentNotice({ sent }: { sent?: { codeSentAt?: number; message?: string } }) {
  const shown = useExpiring(sent?.codeSentAt ? sent : null)
  return shown ? (
    <p className="form-success" role="status">
      {shown.message}
    </p>
  ) : null
}

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
