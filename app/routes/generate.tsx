import {
  getCollectionProps,
  getFormProps,
  getInputProps,
  getTextareaProps,
  useForm,
  type FieldMetadata,
} from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useActionData, useLoaderData, useNavigate } from '@remix-run/react'
import { useEffect, useState, type ChangeEvent } from 'react'
import { CostButton } from '#app/generation/cost.tsx'
import { GenerationDialogs, type GenerationDialog } from '#app/generation/dialogs.tsx'
import { useGenerationRequest } from '#app/generation/generation-request.ts'
import { ACCEPTED_IMAGES, PhotoUpload, useFilePreview } from '#app/generation/photo-upload.tsx'
import { KeptInHistory, TaskProgress, TaskResultPanel, useShownTask } from '#app/generation/result-panel.tsx'
import { FieldError, FormError } from '#app/components/text-field.tsx'
import { TEMPLATE_HANDOFF_KEY, type TemplateHandoff } from '#domain/gallery/gallery-shared.ts'
import { submitImageGeneration } from '#domain/generation/task-submission.server.ts'
import { listStyles } from '#domain/gallery/styles.server.ts'
import { getSystemConfig } from '#domain/credits/system-config.server.ts'
import { findTaskView } from '#domain/generation/user-tasks.server.ts'
import { getOptionalUser } from '#domain/sessions/auth.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import {
  answerGenerationForm,
  readImageGenerationForm,
  type GenerationActionData,
} from '#app/generation/generation-forms.server.ts'
import { imageGenerationSchema, MAX_IMAGE_MB, MAX_REFERENCE_IMAGES } from '#domain/generation/image-generation-form.ts'
import { useRootData } from '#app/hooks/use-root-data.ts'
import { useHydrated } from '#app/hooks/use-hydrated.ts'
import { seo } from '#app/document/seo.ts'
import { downloadName, downloadUrl, isActive, type ClientTask } from '#app/generation/task-client.ts'
import { isGeneratorStyle } from '#domain/generation/prompt.ts'

export const meta: MetaFunction = () =>
  seo({
    title: 'Generate a pet portrait',
    description: 'Upload a photo of your pet and turn it into an AI portrait in the style you choose.',
    keywords: 'pet portrait, AI pet art, dog portrait, cat portrait, pet photo generator',
    jsonLd: {
      '@context': 'https://schema.org',
      '@type': 'SoftwareApplication',
      name: 'Pawtrait pet portrait generator',
      applicationCategory: 'MultimediaApplication',
      operatingSystem: 'Web',
    },
  })

const GENERATE_API = '/api/async-image/generate'
const PAGE = '/generate'
const GENERIC_FAILURE = 'Failed to generate the image, please try again later.'
const LOGIN_FIRST = 'Please log in first to generate images'

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await getOptionalUser(request)
  const db = getDb()
  const env = getEnv()
  const [styles, settings] = await Promise.all([listStyles(db, 'generator'), getSystemConfig(db)])
  // After a submission without JavaScript the page shows that task's state.
  const taskId = new URL(request.url).searchParams.get('task')
  const task = user && taskId ? await findTaskView(db, user.id, taskId, 'image') : null
  return json({
    styles: styles.filter((style) => isGeneratorStyle(style.value)),
    cost: settings.imageGenerationCreditCost,
    offlineRenderer: env.IMAGE_PROVIDER === 'local',
    task,
  })
}

/** The same submission as the API, for browsers without JavaScript. */
export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request)
  return answerGenerationForm({
    read: () => readImageGenerationForm(request),
    submit: (form) => submitImageGeneration(getDb(), user, form, request),
    page: PAGE,
  })
}

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

/** The template the gallery's "Customize in generator" left for this page: read once, then removed. */
function useTemplateHandoff(hydrated: boolean) {
  const [handoff, setHandoff] = useState<TemplateHandoff | null | undefined>(undefined)
  if (hydrated && handoff === undefined) setHandoff(readTemplateHandoff())
  useEffect(() => {
    if (handoff !== undefined) sessionStorage.removeItem(TEMPLATE_HANDOFF_KEY)
  }, [handoff])
  return [handoff ?? null, () => setHandoff(null)] as const
}

export default function Generate() {
  const { styles, cost, offlineRenderer, task: loadedTask } = useLoaderData<typeof loader>()
  const actionData = useActionData<GenerationActionData>()
  const user = useRootData()?.user
  const navigate = useNavigate()

  const [photoPreview, showPhoto] = useFilePreview()
  const [referencePreviews, setReferencePreviews] = useState<string[]>([])
  const [mode, setMode] = useState<'guide' | 'customize'>('guide')
  // Without JavaScript both modes' fields stay enabled (CSS shows the chosen one's).
  const hydrated = useHydrated()
  const [template, clearTemplate] = useTemplateHandoff(hydrated)
  const [dialog, setDialog] = useState<GenerationDialog | null>(null)
  const [current, setCurrent] = useShownTask(loadedTask)
  const request = useGenerationRequest({
    api: GENERATE_API,
    page: PAGE,
    loginMessage: LOGIN_FIRST,
    genericFailure: GENERIC_FAILURE,
    purchaseFallback: 'You do not have enough credits.',
    onDialog: setDialog,
    onSubmitted: setCurrent,
  })

  useEffect(() => () => referencePreviews.forEach((url) => URL.revokeObjectURL(url)), [referencePreviews])

  const [form, fields] = useForm({
    id: 'generate',
    lastResult: actionData?.result,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onInput',
    defaultValue: { style: 'general', mode: 'guide', personification: 'no' },
    onValidate: ({ formData }) => parseWithZod(formData, { schema: imageGenerationSchema }),
    onSubmit(event, { formData }) {
      event.preventDefault()
      void send(formData)
    },
  })

  async function send(formData: FormData) {
    if (!user) {
      window.alert(LOGIN_FIRST)
      return navigate(`/login?redirectTo=${PAGE}`)
    }
    return request.send(formData, { type: 'image', source: template ? 'template' : 'generate' })
  }

  function previewPhoto(event: ChangeEvent<HTMLInputElement>) {
    showPhoto(event.currentTarget.files?.[0])
  }

  function previewReferences(event: ChangeEvent<HTMLInputElement>) {
    const files = [...(event.currentTarget.files ?? [])]
    setReferencePreviews(files.map((file) => URL.createObjectURL(file)))
  }

  const imageErrors = Object.values(fields.images.allErrors).flat()
  const purchaseMessage =
    dialog?.kind === 'purchase' ? dialog.message : actionData?.needPurchase ? form.errors?.[0] : null
  const formErrors = actionData?.needPurchase ? null : form.errors

  return (
    <div className="generate">
      <section className="card generate-form">
        <h1>Generate a pet portrait</h1>
        {offlineRenderer ? (
          <p className="generate-notice" role="note">
            The offline renderer is in use: portraits are drawn on this server from your photo, without an AI model.
          </p>
        ) : null}

        <form method="post" encType="multipart/form-data" {...getFormProps(form)}>
          <FormError errors={formErrors} id={form.errorId} />

          <fieldset className="generate-step">
            <legend>Step 1: Upload a pet photo</legend>
            <PhotoUpload
              field={fields.images}
              label="Pet photo"
              preview={photoPreview}
              alt="Your pet photo"
              hint={<>Choose a clear photo of your pet (JPEG, PNG, WebP or GIF, up to {MAX_IMAGE_MB}MB)</>}
              onChange={previewPhoto}
              errors={imageErrors}
            />
          </fieldset>

          <fieldset className="generate-step">
            <legend>Step 2: Describe the portrait</legend>
            {template ? (
              <TemplatePanel template={template} onClear={clearTemplate} />
            ) : (
              <>
                <StyleChoice styles={styles} field={fields.style} />
                <div className="mode-switch" role="radiogroup" aria-label="Mode">
                  {getCollectionProps(fields.mode, { type: 'radio', options: ['guide', 'customize'] }).map(
                    ({ key, ...props }) => (
                      <label key={key} className="mode-option">
                        <input
                          {...props}
                          onChange={() => setMode(props.value === 'customize' ? 'customize' : 'guide')}
                        />
                        {props.value === 'guide' ? 'Guide mode' : 'Customize mode'}
                      </label>
                    ),
                  )}
                </div>
              </>
            )}

            <fieldset className="guide-fields" disabled={hydrated && mode === 'customize' && !template}>
              <legend className="visually-hidden">Guided options</legend>
              <GuideFields fields={fields} template={template} />
            </fieldset>

            {template ? null : (
              <fieldset className="customize-fields" disabled={hydrated && mode === 'guide'}>
                <legend className="visually-hidden">Custom prompt</legend>
                <div className="field">
                  <label htmlFor={fields.prompt.id}>Prompt</label>
                  <textarea
                    {...getTextareaProps(fields.prompt)}
                    rows={5}
                    placeholder="My corgi as a renaissance nobleman, in an oil painting with a dark background"
                  />
                  <FieldError id={fields.prompt.errorId} errors={fields.prompt.errors} />
                </div>
                <div className="field">
                  <label htmlFor="reference-images">Reference images (optional, up to {MAX_REFERENCE_IMAGES})</label>
                  <input
                    id="reference-images"
                    type="file"
                    name="images"
                    multiple
                    accept={ACCEPTED_IMAGES}
                    onChange={previewReferences}
                  />
                  {referencePreviews.length > 0 ? (
                    <div className="reference-previews">
                      {referencePreviews.map((url, index) => (
                        <img key={url} src={url} alt={`Reference ${index + 1}`} />
                      ))}
                    </div>
                  ) : null}
                </div>
              </fieldset>
            )}
          </fieldset>

          <CostButton label="Generate" cost={cost} submitting={request.submitting}>
            {user ? (
              <>You have {user.credits} credits.</>
            ) : (
              <>
                <Link to={`/login?redirectTo=${PAGE}`}>Log in</Link> to generate portraits.
              </>
            )}
          </CostButton>
        </form>
      </section>

      <ResultPanel task={current} />

      <GenerationDialogs
        dialog={purchaseMessage ? { kind: 'purchase', message: purchaseMessage } : dialog}
        purchaseTitle="Free Usage Limit Reached"
        purchaseNote={<p className="muted">Purchase credits to keep creating portraits of your pet.</p>}
        page={PAGE}
        onClose={() => setDialog(null)}
      />
    </div>
  )
}

function StyleChoice({ styles, field }: { styles: { value: string; label: string }[]; field: FieldMetadata<string> }) {
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

type GuidedFields = Record<GuidedText, FieldMetadata<string | undefined>>

/** The guided options; with a template they start from the template's own values. */
function GuideFields({ fields, template }: { fields: GuidedFields; template: TemplateHandoff | null }) {
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

function TemplatePanel({ template, onClear }: { template: TemplateHandoff; onClear: () => void }) {
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

function ResultPanel({ task }: { task: ClientTask | null }) {
  return (
    <TaskResultPanel
      task={task}
      placeholder="Your portrait will appear here. You can follow every task in Today's Tasks."
      genericFailure={GENERIC_FAILURE}
    >
      {(task) => <PortraitResult task={task} />}
    </TaskResultPanel>
  )
}

function PortraitResult({ task }: { task: ClientTask }) {
  const url = task.result?.imageUrl
  return (
    <>
      {url ? (
        <>
          <img className="generate-image" src={url} alt="Your generated pet portrait" />
          <a className="button" href={downloadUrl(url, downloadName(task))} download>
            Download
          </a>
        </>
      ) : isActive(task) ? (
        <TaskProgress task={task} page={PAGE} />
      ) : null}
      <KeptInHistory what="All your portraits are" history="/history" />
    </>
  )
}
