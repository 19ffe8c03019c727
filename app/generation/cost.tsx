import type { ReactNode } from 'react'

interface CostButtonProps {
  /** What the button does ('Generate'); its cost follows in brackets. */
  label: string
  cost: number
  submitting: boolean
  disabled?: boolean
  /** The balance line below the button. */
  children: ReactNode
}

/** The submit button with what it costs, and the user's credits below it. */
export function CostButton({ label, cost, submitting, disabled, children }: CostButtonProps) {
  return (
    <>
      <button type="submit" className="button generate-submit" disabled={submitting || disabled}>
        {submitting ? 'Submitting…' : `${label} (${cost} credits)`}
      </button>
      <p className="muted">{children}</p>
    </>
  )
}
