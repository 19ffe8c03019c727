import { type FieldMetadata, getInputProps } from '@conform-to/react'
import type { ReactNode } from 'react'
import { FieldError } from '#app/components/form-errors.tsx'

interface TextFieldProps {
  meta: FieldMetadata<unknown, Record<string, unknown>, string[]>
  label: string
  type: 'text' | 'email' | 'password'
  autoComplete?: string
  readOnly?: boolean
  inputMode?: 'numeric'
  maxLength?: number
  /** Shown right of the input, such as a Send Code button. */
  addon?: ReactNode
}

/**
 * A labelled conform input with its error message below it (rendered by the server too). The input
 * sits in the same row whether or not there is an addon, so adding one never remounts the input
 * (which would lose what was typed: conform's default value is the first render's).
 */
export function TextField({ meta, label, type, addon, ...inputOptions }: TextFieldProps) {
  const { key, ...inputProps } = getInputProps(meta, { type })
  return (
    <div className="field">
      <label htmlFor={meta.id}>{label}</label>
      <div className="row">
        <input key={key} {...inputProps} {...inputOptions} className="grow" />
        {addon}
      </div>
      <FieldError id={meta.errorId} errors={meta.errors} />
    </div>
  )
}
