import { getCollectionProps, getInputProps, type FieldMetadata } from '@conform-to/react'
import { useEffect, useState } from 'react'
import { FieldError } from '#app/components/form-errors.tsx'
import { PromptField } from '#app/generation/generator-fields.tsx'
import { ACCEPTED_IMAGES } from '#app/utils/accepted-images.ts'
import { TEMPLATE_HANDOFF_KEY, type StyleJson, type TemplateHandoff } from '#domain/gallery/template-json.ts'
import { MAX_REFERENCE_IMAGES } from '#domain/generation/image-generation-form.ts'

// The /generate page's own fields: style, mode, the guided options, the custom prompt, a template's scene.

const guidedSuggestions = {
  clothingTop: ['a red hoodie', 'a tuxedo jacket', 'a denim jacket', 'a floral dress', 'a knitted sweater'],
  accessories: ['sunglasses', 'a bow tie', 'a golden crown', 'a pearl necklace', 'a wizard hat'],
  clothingPants: ['jeans', 'suit trousers', 'shorts', 'a pleated skirt'],
  clothingShoes: ['sneakers', 'leather boots', 'loafers', 'rain boots'],
  action: ['sitting proudly', 'running on the grass', 'reading a book', 'playing the guitar', 'waving hello'],
  background: ['a sunny beach', 'a snowy forest', 'a city street at night', 'a cosy living room', 'a flower garden'],
}
type GuidedText = keyof typeof guidedSuggestions
const guidedLabels: Record<GuidedText, string> = {
  clothingTop: 'Top',
  accessories: 'Accessories',
  clothingPants: 'Pants',
  clothingShoes: 'Shoes',
  action: 'Action',
  background: 'Background',
}

function readTemplateHandoff(): TemplateHandoff | null {
  try {
    return JSON.parse(sessionStorage.getItem(TEMPLATE_HANDOFF_KEY) ?? 'null') as TemplateHandoff | null
  } catch {
    return null // a broken handoff is ignored
  }
}

/**
 * The template the gallery's "Customize in generator" left for this page (read once, then removed),
 * or `linked`: the one a link named (`/generate?template=<id>`).
 */
export function useTemplateHandoff(hydrated: boolean, linked: TemplateHandoff | null = null) {
  const [handoff, setHandoff] = useState<TemplateHandoff | null | undefined>(linked ?? undefined)
  if (hydrated && handoff === undefined) setHandoff(readTemplateHandoff())
  useEffect(() => {
    if (handoff !== undefined) sessionStorage.removeItem(TEMPLATE_HANDOFF_KEY)
  }, [handoff])
  return [handoff ?? null, () => setHandoff(null)] as const
}

export function StyleChoice({ styles, field }: { styles: StyleJson[]; field: FieldMetadata<string> }) {
  const labels = new Map(styles.map((style) => [style.value, style.label]))
  const options = getCollectionProps(field, { type: 'radio', options: [...labels.keys()] })
  return (
    <div className="style-choice" role="radiogroup" aria-label="Style">
      {options.map(({ key, ...props }) => (
        <label key={key} className="style-option">
          <input {...props} />
          <span>{labels.get(props.value)}</span>
        </label>
      ))}
      <FieldError id={field.errorId} errors={field.errors} />
    </div>
  )
}

export const PORTRAIT_MODES = ['guide', 'customize'] as const
export type PortraitMode = (typeof PORTRAIT_MODES)[number]

type GuidedFields = Record<GuidedText, FieldMetadata<string | undefined>>

/** The guided options; with a template they start from the template's own values. */
export function GuideFields({ fields, template }: { fields: GuidedFields; template: TemplateHandoff | null }) {
  const initial = template?.otherParams
  return (
    // Remounted when a template arrives, so its values become the inputs' defaults.
    <div className="guide-grid" key={template?.templateId ?? 'own'}>
      <div className="field personification" role="radiogroup" aria-label="Personification">
        <span className="field-label">Personification</span>
        {(['no', 'yes'] as const).map((value) => (
          <label key={value} className="mode-option">
            <input
              type="radio"
              name="personification"
              value={value}
              defaultChecked={(initial?.personification === 'yes' ? 'yes' : 'no') === value}
            />
            {value === 'yes' ? 'Yes, human-like' : 'No, a natural animal'}
          </label>
        ))}
      </div>
      {(Object.keys(guidedSuggestions) as GuidedText[]).map((name) => {
        const field = fields[name]
        const personifiedOnly = name === 'clothingPants' || name === 'clothingShoes'
        return (
          <div key={name} className={`field${personifiedOnly ? ' personified-only' : ''}`}>
            <label htmlFor={field.id}>
              {guidedLabels[name]}
              {personifiedOnly ? <span className="muted"> (when personified)</span> : null}
            </label>
            <input
              {...getInputProps(field, { type: 'text' })}
              defaultValue={initial?.[name] ?? field.initialValue ?? ''}
              list={`suggestions-${name}`}
            />
            <datalist id={`suggestions-${name}`}>
              {guidedSuggestions[name].map((suggestion) => (
                <option key={suggestion} value={suggestion} />
              ))}
            </datalist>
            <FieldError id={field.errorId} errors={field.errors} />
          </div>
        )
      })}
    </div>
  )
}

/** Customize mode: the prompt, and reference images after the pet photo. */
export function CustomizeFields({ prompt }: { prompt: FieldMetadata<string> }) {
  const [previews, setPreviews] = useState<string[]>([])
  useEffect(() => () => previews.forEach((url) => URL.revokeObjectURL(url)), [previews])
  return (
    <>
      <PromptField
        field={prompt}
        rows={5}
        placeholder="My corgi as a renaissance nobleman, in an oil painting with a dark background"
      />
      <div className="field">
        <label htmlFor="reference-images">Reference images (optional, up to {MAX_REFERENCE_IMAGES})</label>
        <input
          id="reference-images"
          type="file"
          name="images"
          multiple
          accept={ACCEPTED_IMAGES}
          onChange={(event) =>
            setPreviews([...(event.currentTarget.files ?? [])].map((file) => URL.createObjectURL(file)))
          }
        />
        {previews.length > 0 ? (
          <div className="reference-previews">
            {previews.map((url, index) => (
              <img key={url} src={url} alt={`Reference ${index + 1}`} />
            ))}
          </div>
        ) : null}
      </div>
    </>
  )
}

export function TemplatePanel({ template, onClear }: { template: TemplateHandoff; onClear: () => void }) {
  return (
    <div className="template-panel">
      <input type="hidden" name="style" value="template" />
      <input type="hidden" name="prompt" value={template.prompt} />
      <input type="hidden" name="template_id" value={template.templateId} />
      <div className="field">
        <label htmlFor="template-prompt">Template scene</label>
        <textarea
          id="template-prompt"
          name="templatePrompt"
          rows={3}
          defaultValue={template.otherParams.templatePrompt || template.prompt}
          maxLength={4000}
        />
      </div>
      <button type="button" className="button secondary" onClick={onClear}>
        Don&apos;t use the template
      </button>
    </div>
  )
}
