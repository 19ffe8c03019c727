import { useId } from 'react'
import type { ImageQuality } from '#domain/generation/image-prices.ts'

/**
 * Standard or HD (`quality`), two plain radio buttons that work without JavaScript, each with its
 * price a version and what it makes, so the cost and the print size are known before submitting.
 */
export function QualityChoice({
  standardCost,
  hdCost,
  value,
  onChange,
}: {
  standardCost: number
  hdCost: number
  value: ImageQuality
  onChange: (quality: ImageQuality) => void
}) {
  const id = useId()
  const option = (quality: ImageQuality, label: string, cost: number, note: string) => (
    <label className="quality-option">
      <input
        type="radio"
        name="quality"
        value={quality}
        checked={value === quality}
        onChange={() => onChange(quality)}
      />{' '}
      <strong>{label}</strong> ({cost} credits a version) <span className="muted">{note}</span>
    </label>
  )
  return (
    <fieldset className="field quality-choice" aria-describedby={`${id}-note`}>
      <legend>Quality</legend>
      {option('standard', 'Standard', standardCost, '1024 px, prints sharp up to about 3 in')}
      {option('hd', 'HD', hdCost, 'the largest the image service makes (up to 4096 px), for prints up to 11×14 in')}
      <p className="muted" id={`${id}-note`}>
        An HD version that comes back smaller than HD is refunded the difference.
      </p>
    </fieldset>
  )
}
