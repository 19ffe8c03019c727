import { Form } from '@remix-run/react'
import { useState } from 'react'
import { presetRange, type RangePreset } from '#app/utils/date-range.ts'
import { useHydrated } from '#app/utils/use-hydrated.ts'

const presets: Array<[RangePreset, string]> = [
  ['day', 'Today'],
  ['week', 'Last 7 Days'],
  ['month', 'Last 30 Days'],
  ['year', 'Last 365 Days'],
]

interface Props {
  startDate: string
  endDate: string
  preset: RangePreset | null
  loading: boolean
}

/**
 * A GET form. With JavaScript a range button only fills the date inputs, and nothing is fetched
 * until Refresh Data; without it, the button submits and the server fills the inputs instead.
 */
export function RangeControls(props: Props) {
  const [dates, setDates] = useState({ startDate: props.startDate, endDate: props.endDate })
  const [preset, setPreset] = useState(props.preset)
  const hydrated = useHydrated()
  const choose = (next: RangePreset) => {
    setPreset(next)
    setDates(presetRange(next))
  }
  const edit = (field: 'startDate' | 'endDate', value: string) => {
    setPreset(null)
    setDates((current) => ({ ...current, [field]: value }))
  }

  return (
    <Form method="get" className="card range-controls">
      <div className="range-presets" role="group" aria-label="Time range">
        {presets.map(([value, label]) => (
          <button
            key={value}
            // Once hydrated they must not be submit buttons: Enter in a date input would "click" the first one.
            type={hydrated ? 'button' : 'submit'}
            name="range"
            value={value}
            className={`button ${preset === value ? '' : 'secondary'}`}
            aria-pressed={preset === value}
            onClick={() => choose(value)}
          >
            {label}
          </button>
        ))}
      </div>
      <div className="row range-dates">
        <div className="field">
          <label htmlFor="startDate">Start date</label>
          <input
            id="startDate"
            name="startDate"
            type="date"
            required
            value={dates.startDate}
            onChange={(event) => edit('startDate', event.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="endDate">End date</label>
          <input
            id="endDate"
            name="endDate"
            type="date"
            required
            value={dates.endDate}
            onChange={(event) => edit('endDate', event.target.value)}
          />
        </div>
        <div className="field">
          <button type="submit" className="button" disabled={props.loading}>
            {props.loading ? 'Loading…' : 'Refresh Data'}
          </button>
        </div>
      </div>
    </Form>
  )
}
