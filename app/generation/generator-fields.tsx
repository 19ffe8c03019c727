import { getCollectionProps, getTextareaProps, type FieldMetadata } from '@conform-to/react'
import type { ReactNode } from 'react'
import { FieldError } from '#app/components/form-errors.tsx'

// Inputs both generator forms use.

type ModeSwitchProps<Value extends string> = {
  field: FieldMetadata<string | undefined>
  options: readonly Value[]
  label: (value: Value) => ReactNode
  onChange: (value: Value) => void
} & ({ 'aria-label': string } | { 'aria-labelledby': string })

/** A radio group shown as pills (the generators' modes, the video's quality). */
export function ModeSwitch<Value extends string>({ field, options, label, onChange, ...name }: ModeSwitchProps<Value>) {
  return (
    <div className="mode-switch" role="radiogroup" {...name}>
      {getCollectionProps(field, { type: 'radio', options: [...options] }).map(({ key, ...props }) => (
        <label key={key} className="mode-option">
          <input {...props} onChange={() => onChange(props.value as Value)} />
          {label(props.value as Value)}
        </label>
      ))}
    </div>
  )
}

interface PromptFieldProps {
  field: FieldMetadata<string | undefined>
  rows: number
  placeholder: string
  onChange?: (prompt: string) => void
}

export function PromptField({ field, rows, placeholder, onChange }: PromptFieldProps) {
  return (
    <div className="field">
      <label htmlFor={field.id}>Prompt</label>
      <textarea
        {...getTextareaProps(field)}
        rows={rows}
        placeholder={placeholder}
        onChange={onChange && ((event) => onChange(event.currentTarget.value))}
      />
      <FieldError id={field.errorId} errors={field.errors} />
    </div>
  )
}
