// Without conform, so that a page that only shows an error line (the gallery's Use template modal)
// does not load the forms library (decision 0021: the first screen loads no more than it shows).

/**
 * The error line under a field (rendered by the server too). With an id it is always there, as the
 * input's aria-describedby target; without one, only when there is an error.
 */
export function FieldError({ id, errors }: { id?: string; errors?: string[] }) {
  if (!id && !errors?.length) return null
  return (
    <span className="field-error" id={id} role={errors?.length ? 'alert' : undefined}>
      {errors?.join(' ')}
    </span>
  )
}

/** The form-level error (a refused login, a rate limit) above the fields. */
export function FormError({ errors, id }: { errors?: string[] | null; id: string }) {
  if (!errors?.length) return null
  return (
    <p className="form-error" id={id} role="alert">
      {errors.join(' ')}
    </p>
  )
}
