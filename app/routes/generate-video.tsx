import { getCollectionProps, getFormProps, getSelectProps, getTextareaProps, useForm } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useActionData, useLoaderData } from '@remix-run/react'
import { useState, type ChangeEvent } from 'react'
import { AccessDenied } from '#app/components/access-denied.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { CostButton } from '#app/generation/cost.tsx'
import { GenerationDialogs, type GenerationDialog } from '#app/generation/dialogs.tsx'
import { useGenerationRequest } from '#app/generation/generation-request.ts'
import { PhotoUpload, useFilePreview } from '#app/generation/photo-upload.tsx'
import { KeptInHistory, TaskProgress, TaskResultPanel, useShownTask } from '#app/generation/result-panel.tsx'
import { FieldError, FormError } from '#app/components/text-field.tsx'
import { getSystemConfig } from '#domain/credits/system-config.server.ts'
import { findTaskView } from '#domain/generation/user-tasks.server.ts'
import { submitVideoGeneration } from '#domain/generation/task-submission.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import {
  answerGenerationForm,
  readVideoGenerationForm,
  type GenerationActionData,
} from '#app/generation/generation-forms.server.ts'
import { useRootData } from '#app/hooks/use-root-data.ts'
import { seo } from '#app/document/seo.ts'
import { downloadName, downloadUrl, isActive, type ClientTask } from '#app/generation/task-client.ts'
import { useHydrated } from '#app/hooks/use-hydrated.ts'
import { ASPECT_RATIOS, RESOLUTIONS } from '#domain/generation/video-dimensions.ts'
import {
  aspectRatioLabels,
  FILE_TOO_LARGE,
  MAX_VIDEO_IMAGE_MB,
  modeLabels,
  QUALITIES,
  qualityLabels,
  resolutionLabels,
  VIDEO_MODES,
  videoCost,
  videoGenerationSchema,
  type VideoMode,
  type VideoQuality,
} from '#domain/generation/video-generation-form.ts'
import { VIDEO_ACCESS_RESTRICTED, VIDEO_LOGIN_FIRST } from '#domain/permissions/permissions.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'

// The page shares the generator's layout (two columns, mode pills, result panel) and adds its own.
export const meta: MetaFunction = () =>
  seo({ title: 'Generate a pet video', description: 'Turn a pet photo or a description into a short MP4 video.' })

const GENERATE_API = '/api/async-video/generate'
const PAGE = '/generate-video'
const GENERIC_FAILURE = 'Failed to create video generation task, please try again later.'

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requirePermission(request, 'generateVideos')
  const db = getDb()
  const env = getEnv()
  const settings = await getSystemConfig(db)
  // After a submission without JavaScript the page shows that task's state.
  const taskId = new URL(request.url).searchParams.get('task')
  const task = taskId ? await findTaskView(db, user.id, taskId, 'video') : null
  return json({
    costs: { stable: videoCost(settings, 'stable'), fast: videoCost(settings, 'fast') },
    offlineRenderer: env.VIDEO_PROVIDER === 'local',
    task,
  })
}

/** The same submission as the API, for browsers without JavaScript. */
export async function action({ request }: ActionFunctionArgs) {
  const user = await requirePermission(request, 'generateVideos')
  return answerGenerationForm({
    read: () => readVideoGenerationForm(request),
    submit: (form) => submitVideoGeneration(getDb(), user, form),
    page: PAGE,
  })
}

type Costs = Record<VideoQuality, number>

export default function GenerateVideo() {
  const { costs, offlineRenderer, task: loadedTask } = useLoaderData<typeof loader>()
  // The Today's Tasks sidebar follows the task (pushed, or polled every 2 s while the stream is down); this page shows its updates.
  const [current, setCurrent] = useShownTask(loadedTask)
  const [dialog, setDialog] = useState<GenerationDialog | null>(null)
  // Generate Another remounts the form, which clears every input and its state.
  const [formKey, setFormKey] = useState(0)

  function startOver() {
    setCurrent(null)
    setFormKey((key) => key + 1)
  }

  return (
    <div className="generate video-generate">
      <section className="card generate-form">
        <h1>Generate a pet video</h1>
        {offlineRenderer ? (
          <p className="generate-notice" role="note">
            The offline renderer is in use: videos are made on this server from your photo or prompt, without an AI
            model.
          </p>
        ) : null}
        <VideoForm key={formKey} costs={costs} onSubmitted={setCurrent} onDialog={setDialog} />
      </section>

      <aside className="video-side">
        <ResultPanel task={current} onStartOver={startOver} />
        <InfoCards costs={costs} />
      </aside>

      <VideoDialogs dialog={dialog} onClose={() => setDialog(null)} />
    </div>
  )
}

interface VideoFormProps {
  costs: Costs
  onSubmitted: (task: ClientTask) => void
  onDialog: (dialog: GenerationDialog) => void
}

function VideoForm({ costs, onSubmitted, onDialog }: VideoFormProps) {
  const actionData = useActionData<GenerationActionData>()
  const credits = useRootData()?.user?.credits ?? 0
  // Without JavaScript every control stays enabled; the server forces 720p for 9:16.
  const hydrated = useHydrated()

  const [form, fields] = useForm({
    id: 'generate-video',
    lastResult: actionData?.result,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onInput',
    defaultValue: { mode: 'image', aspectRatio: '16:9', resolution: '720p', quality: 'stable' },
    onValidate: ({ formData }) => parseWithZod(formData, { schema: videoGenerationSchema }),
    onSubmit(event, { formData }) {
      event.preventDefault()
      void send(formData)
    },
  })

  const [mode, setMode] = useState<VideoMode>(fields.mode.initialValue === 'text' ? 'text' : 'image')
  const [portrait, setPortrait] = useState(fields.aspectRatio.initialValue === '9:16')
  const [resolution, setResolution] = useState(fields.resolution.initialValue === '1280p' ? '1280p' : '720p')
  const [quality, setQuality] = useState<VideoQuality>(fields.quality.initialValue === 'fast' ? 'fast' : 'stable')
  const [prompt, setPrompt] = useState(fields.prompt.initialValue ?? '')
  const [preview, showPreview] = useFilePreview()
  const [fileError, setFileError] = useState<string | null>(null)

  const cost = costs[quality]
  const missingInput = mode === 'image' ? !preview : !prompt.trim()

  const request = useGenerationRequest({
    api: GENERATE_API,
    page: PAGE,
    loginMessage: VIDEO_LOGIN_FIRST,
    genericFailure: GENERIC_FAILURE,
    purchaseFallback: `You need at least ${cost} credits to generate a video`,
    onDialog,
    onSubmitted,
  })
  function send(formData: FormData) {
    return request.send(formData, { type: 'video', description: 'Generate pet video' })
  }

  function chooseImage(event: ChangeEvent<HTMLInputElement>) {
    const file = event.currentTarget.files?.[0]
    const tooLarge = file !== undefined && file.size > MAX_VIDEO_IMAGE_MB * 1024 * 1024
    if (tooLarge) event.currentTarget.value = ''
    setFileError(tooLarge ? FILE_TOO_LARGE : null)
    showPreview(tooLarge ? null : file)
  }

  const purchaseMessage = actionData?.needPurchase ? form.errors?.[0] : null
  const formErrors = actionData?.needPurchase ? null : form.errors
  const imageErrors = fileError ? [fileError] : fields.image.errors

  return (
    <form method="post" encType="multipart/form-data" {...getFormProps(form)}>
      <FormError errors={formErrors} id={form.errorId} />
      {purchaseMessage ? <VideoDialogs dialog={{ kind: 'purchase', message: purchaseMessage }} /> : null}

      <div className="mode-switch" role="radiogroup" aria-label="Mode">
        {getCollectionProps(fields.mode, { type: 'radio', options: [...VIDEO_MODES] }).map(({ key, ...props }) => (
          <label key={key} className="mode-option">
            <input {...props} onChange={() => setMode(props.value === 'text' ? 'text' : 'image')} />
            {modeLabels[props.value as VideoMode]}
          </label>
        ))}
      </div>

      <fieldset className="video-image-field" disabled={hydrated && mode === 'text'}>
        <legend className="field-label">Image</legend>
        <PhotoUpload
          field={fields.image}
          label="Pet image"
          preview={preview}
          alt="Preview of your image"
          hint={<>Choose a photo of your pet to animate (JPEG, PNG, WebP or GIF, up to {MAX_VIDEO_IMAGE_MB}MB)</>}
          onChange={chooseImage}
          errors={imageErrors}
        />
      </fieldset>

      <div className="field">
        <label htmlFor={fields.prompt.id}>Prompt</label>
        <textarea
          {...getTextareaProps(fields.prompt)}
          rows={6}
          placeholder={
            mode === 'text'
              ? 'A fluffy white cat chasing butterflies in a sunny garden'
              : 'Optional: how the photo should move, e.g. my dog turns its head and wags its tail'
          }
          onChange={(event) => setPrompt(event.currentTarget.value)}
        />
        <FieldError id={fields.prompt.errorId} errors={fields.prompt.errors} />
      </div>

      <div className="video-options">
        <div className="field">
          <label htmlFor={fields.aspectRatio.id}>Aspect ratio</label>
          <select
            {...getSelectProps(fields.aspectRatio)}
            onChange={(event) => {
              const isPortrait = event.currentTarget.value === '9:16'
              setPortrait(isPortrait)
              if (isPortrait) setResolution('720p')
            }}
          >
            {ASPECT_RATIOS.map((ratio) => (
              <option key={ratio} value={ratio}>
                {aspectRatioLabels[ratio]}
              </option>
            ))}
          </select>
          <FieldError id={fields.aspectRatio.errorId} errors={fields.aspectRatio.errors} />
        </div>
        <div className="field">
          <label htmlFor={fields.resolution.id}>Resolution</label>
          {/* Controlled: choosing 9:16 forces 720p and locks it. */}
          <select
            id={fields.resolution.id}
            name={fields.resolution.name}
            aria-describedby={`${fields.resolution.errorId} resolution-hint`}
            value={portrait ? '720p' : resolution}
            disabled={hydrated && portrait}
            onChange={(event) => setResolution(event.currentTarget.value === '1280p' ? '1280p' : '720p')}
          >
            {RESOLUTIONS.map((value) => (
              <option key={value} value={value}>
                {resolutionLabels[value]}
              </option>
            ))}
          </select>
          <p className="muted video-hint" id="resolution-hint">
            1280p is available only for 16:9.
          </p>
          <FieldError id={fields.resolution.errorId} errors={fields.resolution.errors} />
        </div>
      </div>

      <div className="field">
        <span className="field-label" id="quality-label">
          Quality
        </span>
        <div className="mode-switch" role="radiogroup" aria-labelledby="quality-label">
          {getCollectionProps(fields.quality, { type: 'radio', options: [...QUALITIES] }).map(({ key, ...props }) => (
            <label key={key} className="mode-option">
              <input {...props} onChange={() => setQuality(props.value === 'fast' ? 'fast' : 'stable')} />
              {qualityLabels[props.value as VideoQuality]} ({costs[props.value as VideoQuality]} credits)
            </label>
          ))}
        </div>
      </div>

      {/* Sent as the spec's payload has it; the server charges its own configured cost. */}
      <input type="hidden" name="creditCost" value={cost} />
      <CostButton
        label="GENERATE VIDEO"
        cost={cost}
        submitting={request.submitting}
        disabled={hydrated && missingInput}
      >
        Current credits: {credits}
      </CostButton>
    </form>
  )
}

function ResultPanel({ task, onStartOver }: { task: ClientTask | null; onStartOver: () => void }) {
  return (
    <TaskResultPanel
      task={task}
      placeholder="Your video will appear here. You can follow every task in Today's Tasks."
      genericFailure={GENERIC_FAILURE}
    >
      {(task) => <VideoResult task={task} onStartOver={onStartOver} />}
    </TaskResultPanel>
  )
}

function VideoResult({ task, onStartOver }: { task: ClientTask; onStartOver: () => void }) {
  const url = task.result?.videoUrl
  return (
    <>
      {isActive(task) ? <TaskProgress task={task} page={PAGE} /> : null}
      {url ? (
        <video className="video-player" src={url} controls playsInline preload="metadata" aria-label="Your pet video" />
      ) : null}
      <div className="row">
        {url ? (
          <a className="button" href={downloadUrl(url, downloadName(task))} download>
            Download Video
          </a>
        ) : null}
        {isActive(task) ? null : (
          <Link to={PAGE} className="button secondary" onClick={onStartOver}>
            Generate Another
          </Link>
        )}
      </div>
      <KeptInHistory what="Your videos are" history="/history?type=video" />
    </>
  )
}

function InfoCards({ costs }: { costs: Costs }) {
  return (
    <div className="video-info">
      <section className="card video-info-card">
        <h3>Estimated time</h3>
        <p>2-5 minutes per video. You can leave this page: the video keeps rendering in Today&apos;s Tasks.</p>
      </section>
      <section className="card video-info-card">
        <h3>Output</h3>
        <p>An MP4 video (H.264) at the aspect ratio and resolution you choose.</p>
      </section>
      <section className="card video-info-card">
        <h3>Stable vs Fast</h3>
        <p>
          Stable ({costs.stable} credits) gives the smoothest, most detailed result. Fast ({costs.fast} credits) is
          quicker and cheaper, with a little less detail.
        </p>
      </section>
    </div>
  )
}

function VideoDialogs({ dialog, onClose = () => {} }: { dialog: GenerationDialog | null; onClose?: () => void }) {
  return <GenerationDialogs dialog={dialog} purchaseTitle="Insufficient Credits" page={PAGE} onClose={onClose} />
}

export function ErrorBoundary() {
  return (
    <GeneralErrorBoundary
      statusHandlers={{
        401: () => (
          <div className="card center-card" role="alert">
            <h1>Generate Video</h1>
            <p>{VIDEO_LOGIN_FIRST}</p>
            <Link className="button" to={`/login?redirectTo=${PAGE}`}>
              Log in
            </Link>
          </div>
        ),
        403: () => <AccessDenied title="Access Restricted" message={VIDEO_ACCESS_RESTRICTED} />,
      }}
      fallback="The video generator could not be loaded. Please try again later."
    />
  )
}
