import { useEffect, useState } from 'react'
import { FieldError } from '#app/components/form-errors.tsx'
import { useHydrated } from '#app/hooks/use-hydrated.ts'
import {
  TITLE_FONTS,
  TITLE_MAX_LENGTH,
  TITLE_STYLES,
  type TitleFont,
  type TitleStyle,
  type VersionTitle,
} from '#domain/titles/title-options.ts'

/** The preview of a title as the server draws it (GET /api/titles/preview). */
export const titlePreviewUrl = (title: VersionTitle) =>
  `/api/titles/preview?${new URLSearchParams({ title: title.text, style: title.style, font: title.font })}`

interface TitleFieldsProps {
  /** The inputs' names: the generator's `title`, `titleStyle`, `titleFont`, or a set title's `title`, `style`, `font`. */
  names: { title: string; style: string; font: string }
  initial?: VersionTitle | null
  errors?: string[]
  /** Ids unique on the page. */
  idPrefix: string
}

/**
 * A name on the portrait (issue 41): the text (at most 24 characters), the plaque style and the
 * font, with the server's drawing of it: with JavaScript a preview that follows the typing; without
 * it, a button that opens /title-preview in a tab of its own (a GET of the form's fields).
 */
export function TitleFields({ names, initial, errors, idPrefix }: TitleFieldsProps) {
  const hydrated = useHydrated()
  const [title, setTitle] = useState<VersionTitle>({
    text: initial?.text ?? '',
    style: initial?.style ?? 'band',
    font: initial?.font ?? 'playfair-display',
  })
  const [shown, setShown] = useState(title)
  // The preview follows the typing after a pause, not every key.
  useEffect(() => {
    const timer = setTimeout(() => setShown(title), 400)
    return () => clearTimeout(timer)
  }, [title])
  const text = shown.text.trim()
  return (
    <div className="title-fields">
      <div className="field">
        <label htmlFor={`${idPrefix}-title`}>Name on the portrait (optional)</label>
        <input
          id={`${idPrefix}-title`}
          name={names.title}
          maxLength={TITLE_MAX_LENGTH}
          defaultValue={title.text}
          placeholder="Biscuit & Pepper"
          onChange={(event) => setTitle({ ...title, text: event.currentTarget.value })}
          aria-describedby={`${idPrefix}-title-note`}
        />
        <p className="muted" id={`${idPrefix}-title-note`}>
          Up to {TITLE_MAX_LENGTH} characters, set exactly as typed. You can change or remove it later for free.
        </p>
        <FieldError id={`${idPrefix}-title-error`} errors={errors} />
      </div>
      <fieldset className="field title-styles">
        <legend>Plaque</legend>
        {Object.entries(TITLE_STYLES).map(([style, label]) => (
          <label key={style}>
            <input
              type="radio"
              name={names.style}
              value={style}
              defaultChecked={style === title.style}
              onChange={() => setTitle({ ...title, style: style as TitleStyle })}
            />{' '}
            {label}
          </label>
        ))}
      </fieldset>
      <div className="field">
        <label htmlFor={`${idPrefix}-font`}>Font</label>
        <select
          id={`${idPrefix}-font`}
          name={names.font}
          defaultValue={title.font}
          onChange={(event) => setTitle({ ...title, font: event.currentTarget.value as TitleFont })}
        >
          {Object.entries(TITLE_FONTS).map(([font, name]) => (
            <option key={font} value={font}>
              {name}
            </option>
          ))}
        </select>
      </div>
      {hydrated ? (
        text ? (
          <img
            className="title-preview"
            src={titlePreviewUrl({ ...shown, text })}
            alt={`Preview of the name “${text}” as it will be set`}
            width={256}
            height={256}
          />
        ) : null
      ) : (
        <button
          type="submit"
          className="button secondary"
          formAction="/title-preview"
          formMethod="get"
          formTarget="_blank"
          formNoValidate
        >
          Preview the name
        </button>
      )}
    </div>
  )
}
