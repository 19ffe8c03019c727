import { useId } from 'react'
import { VARIANT_CHOICES } from '#domain/generation/image-prices.ts'

/**
 * How many versions a run makes (`variants`: 1, 2 or 4), a plain select that works without
 * JavaScript; the price of one version stands beside it, so the cost is known before submitting
 * (with JavaScript the submit button shows the total as well).
 */
export function VersionsChoice({
  unitCost,
  value,
  onChange,
  errors,
}: {
  /** What one version costs (the image cost). */
  unitCost: number
  value: number
  onChange: (variants: number) => void
  errors?: string[]
}) {
  const id = useId()
  return (
    <div className="field versions-choice">
      <label htmlFor={id}>Versions</label>
      <select
        id={id}
        name="variants"
        value={value}
        onChange={(event) => onChange(Number(event.currentTarget.value))}
        aria-describedby={`${id}-cost`}
      >
        {VARIANT_CHOICES.map((count) => (
          <option key={count} value={count}>
            {count === 1 ? '1 version' : `${count} versions`} ({count * unitCost} credits)
          </option>
        ))}
      </select>
      <p className="muted" id={`${id}-cost`}>
        Each version costs {unitCost} credits; a version the service does not deliver is refunded.
      </p>
      {errors?.length ? (
        <p className="form-error" role="alert">
          {errors[0]}
        </p>
      ) : null}
    </div>
  )
}
