import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { useState, type ChangeEvent } from 'react'
import { AccessDenied } from '#app/components/access-denied.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { CostButton } from '#app/generation/cost.tsx'
import {
  answerGenerationForm,
  findShownTask,
  readVideoGenerationForm,
} from '#app/generation/generation-forms.server.ts'
import type { Generator, TaskFollow } from '#app/generation/generation-request.ts'
import { GeneratorForm, useGeneratorForm } from '#app/generation/generator-form.tsx'
import { GeneratorShell } from '#app/generation/generator-shell.tsx'
import { ModeSwitch, PromptField } from '#app/generation/generator-fields.tsx'
import { PhotoUpload, useFilePreview } from '#app/generation/photo-upload.tsx'
import { DownloadLink, KeptInHistory, TaskProgress } from '#app/generation/result-panel.tsx'
import { isActive } from '#app/generation/task-status.ts'
import type { ClientTask } from '#domain/generation/task-view.ts'
import { VideoDimensionsField } from '#app/generation/video-dimensions-field.tsx'
import { seo } from '#app/document/seo.ts'
import { useHydrated } from '#app/hooks/use-hydrated.ts'
import { useRootData } from '#app/hooks/use-root-data.ts'
import { getSystemConfig } from '#domain/credits/system-config.server.ts'
import { submitVideoGeneration } from '#domain/generation/video-submission.server.ts'
import {
  FILE_TOO_LARGE,
  MAX_VIDEO_IMAGE_MB,
  modeLabels,
  QUALITIES,
  qualityLabels,
  VIDEO_MODES,
  videoCost,
  videoGenerationSchema,
  type VideoMode,
  type VideoQuality,
} from '#domain/generation/video-generation-form.ts'
import { VIDEO_ACCESS_RESTRICTED, VIDEO_LOGIN_FIRST } from '#domain/permissions/permissions.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'

// The page shares the generator's layout (two columns, mode pills, result panel) and adds its own.
export const meta: MetaFunction = () =>
  seo({ title: 'Generate a pet video', description: 'Turn a pet photo or a description into a short MP4 video.' })

const VIDEOS: Generator = {
  page: '/generate-video',
  loginMessage: VIDEO_LOGIN_FIRST,
  genericFailure: 'Failed to create video generation task, please try again later.',
  purchaseTitle: 'Insufficient Credits',
}

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requirePermission(request, 'generateVideos')
  const [settings, task] = await Promise.all([getSystemConfig(getDb()), findShownTask(request, user.id, 'video')])
  return json({
    costs: { stable: videoCost(settings, 'stable'), fast: videoCost(settings, 'fast') },
    offlineRenderer: getEnv().VIDEO_PROVIDER === 'local',
    task,
  })
}

/** The same submission as the API, for browsers without JavaScript. */
export async function action({ request }: ActionFunctionArgs) {
  const user = await requirePermission(request, 'generateVideos')
  return answerGenerationForm({
    read: () => readVideoGenerationForm(request),
    submit: (form) => submitVideoGeneration(getDb(), user, form),
    page: VIDEOS.page,
  })
}

type Costs = Record<VideoQuality, number>

export default function GenerateVideo() {
  const { costs, offlineRenderer, task } = useLoaderData<typeof loader>()
  return (
    <GeneratorShell
      generator={VIDEOS}
      loadedTask={task}
      className="generate video-generate"
      title="Generate a pet video"
      offlineNotice={
        offlineRenderer
          ? 'The offline renderer is in use: videos are made on this server from your photo or prompt, without an AI model.'
          : null
      }
      form={(follow) => <VideoForm costs={costs} follow={follow} />}
      placeholder="Your video will appear here. You can follow every task in Today's Tasks."
      result={(task, startOver) => <VideoResult task={task} onStartOver={startOver} />}
      aside={<InfoCards costs={costs} />}
    />
  )
}

function VideoForm({ costs, follow }: { costs: Costs; follow: TaskFollow }) {
  const credits = useRootData()?.user?.credits ?? 0
  // Without JavaScript every control stays enabled.
  const hydrated = useHydrated()
  const { form, fields, submitting, needPurchase } = useGeneratorForm(VIDEOS, follow, {
    id: 'generate-video',
    schema: videoGenerationSchema,
    defaultValue: { mode: 'image', aspectRatio: '16:9', resolution: '720p', quality: 'stable' },
    task: { type: 'video', description: 'Generate pet video' },
  })

  const [mode, setMode] = useState<VideoMode>(fields.mode.initialValue === 'text' ? 'text' : 'image')
  const [quality, setQuality] = useState<VideoQuality>(fields.quality.initialValue === 'fast' ? 'fast' : 'stable')
  const [prompt, setPrompt] = useState(fields.prompt.initialValue ?? '')
  const [preview, showPreview] = useFilePreview()
  const [fileError, setFileError] = useState<string | null>(null)

  const cost = costs[quality]
  const missingInput = mode === 'image' ? !preview : !prompt.trim()

  function chooseImage(event: ChangeEvent<HTMLInputElement>) {
    const file = event.currentTarget.files?.[0]
    const tooLarge = file !== undefined && file.size > MAX_VIDEO_IMAGE_MB * 1024 * 1024
    if (tooLarge) event.currentTarget.value = ''
    setFileError(tooLarge ? FILE_TOO_LARGE : null)
    showPreview(tooLarge ? null : file)
  }

  return (
    <GeneratorForm form={form} needPurchase={needPurchase}>
      <ModeSwitch
        aria-label="Mode"
        field={fields.mode}
        options={VIDEO_MODES}
        label={(value) => modeLabels[value]}
        onChange={setMode}
      />

      <fieldset className="video-image-field" disabled={hydrated && mode === 'text'}>
        <legend className="field-label">Image</legend>
        <PhotoUpload
          field={fields.image}
          label="Pet image"
          preview={preview}
          alt="Preview of your image"
          hint={<>Choose a photo of your pet to animate (JPEG, PNG, WebP or GIF, up to {MAX_VIDEO_IMAGE_MB}MB)</>}
          onChange={chooseImage}
          errors={fileError ? [fileError] : fields.image.errors}
        />
      </fieldset>

      <PromptField
        field={fields.prompt}
        rows={6}
        placeholder={
          mode === 'text'
            ? 'A fluffy white cat chasing butterflies in a sunny garden'
            : 'Optional: how the photo should move, e.g. my dog turns its head and wags its tail'
        }
        onChange={setPrompt}
      />

      <VideoDimensionsField aspectRatio={fields.aspectRatio} resolution={fields.resolution} />

      <div className="field">
        <span className="field-label" id="quality-label">
          Quality
        </span>
        <ModeSwitch
          aria-labelledby="quality-label"
          field={fields.quality}
          options={QUALITIES}
          label={(value) => `${qualityLabels[value]} (${costs[value]} credits)`}
          onChange={setQuality}
        />
      </div>

      {/* Sent as the spec's payload has it; the server charges its own configured cost. */}
      <input type="hidden" name="creditCost" value={cost} />
      <CostButton label="GENERATE VIDEO" cost={cost} submitting={submitting} disabled={hydrated && missingInput}>
        Current credits: {credits}
      </CostButton>
    </GeneratorForm>
  )
}

function VideoResult({ task, onStartOver }: { task: ClientTask; onStartOver: () => void }) {
  const url = task.result?.videoUrl
  return (
    <>
      {isActive(task) ? <TaskProgress task={task} page={VIDEOS.page} /> : null}
      {url ? (
        <video className="video-player" src={url} controls playsInline preload="metadata" aria-label="Your pet video" />
      ) : null}
      <div className="row">
        {url ? (
          <DownloadLink task={task} url={url}>
            Download Video
          </DownloadLink>
        ) : null}
        {isActive(task) ? null : (
          <Link to={VIDEOS.page} className="button secondary" onClick={onStartOver}>
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

export function ErrorBoundary() {
  return (
    <GeneralErrorBoundary
      statusHandlers={{
        401: () => (
          <div className="card center-card" role="alert">
            <h1>Generate Video</h1>
            <p>{VIDEO_LOGIN_FIRST}</p>
            <Link className="button" to={`/login?redirectTo=${VIDEOS.page}`}>
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
