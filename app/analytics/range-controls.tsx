import { Form } from '@remix-run/react'
import { useState } from 'react'
import { presetRange, type RangePreset } from '#domain/analytics/date-range.ts'
import { useHydrated } from '#app/hooks/use-hydrated.ts'

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
  const edit = (field: DateName, value: string) => {
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
        <DateField name="startDate" label="Start date" value={dates.startDate} onChange={edit} />
        <DateField name="endDate" label="End date" value={dates.endDate} onChange={edit} />
        <div className="field">
          <button type="submit" className="button" disabled={props.loading}>
            {props.loading ? 'Loading…' : 'Refresh Data'}
          </button>
        </div>
      </div>
    </Form>
  )
}

type DateName = 'startDate' | 'endDate'

function DateField(props: {
  name: DateName
  label: string
  value: string
  onChange: (name: DateName, value: string) => void
}) {
  return (
    <div className="field">
      <label htmlFor={props.name}>{props.label}</label>
      <input
        id={props.name}
        name={props.name}
        type="date"
        required
        value={props.value}
        onChange={(event) => props.onChange(props.name, event.target.value)}
      />
    </div>
  )
}
