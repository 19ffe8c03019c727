import { type FieldMetadata, getInputProps } from '@conform-to/react'
import type { ReactNode } from 'react'

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
      <span className="field-error" id={meta.errorId} role={meta.errors ? 'alert' : undefined}>
        {meta.errors?.join(' ')}
      </span>
    </div>
  )
}

/** The form-level error (a refused login, a rate limit) above the fields. */
export function FormError({ errors, id }: { errors?: string[]; id: string }) {
  if (!errors?.length) return null
  return (
    <p className="form-error" id={id} role="alert">
      {errors.join(' ')}
    </p>
  )
}
