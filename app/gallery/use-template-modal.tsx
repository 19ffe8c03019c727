import { Link, useFetcher, useNavigate } from '@remix-run/react'
import { type FormEvent, useEffect, useRef, useState } from 'react'
import { UrlModal } from '#app/components/url-modal.tsx'
import { FieldError } from '#app/components/form-errors.tsx'
import { type ApplicableTemplate, TEMPLATE_HANDOFF_KEY, type TemplateHandoff } from '#domain/gallery/template-json.ts'
import type { GenerationActionData } from '#app/generation/generation-forms.server.ts'
import { useTaskStore } from '#app/generation/task-store-context.tsx'
import { PhotoCheckNote, usePhotoCheck } from '#app/generation/photo-check-note.tsx'
import { ACCEPTED_IMAGES } from '#app/utils/accepted-images.ts'
import { inPageSubmission } from '#app/utils/in-page-answer.ts'
import { useRootData } from '#app/hooks/use-root-data.ts'
import { VersionsChoice } from '#app/generation/versions-choice.tsx'
import { imageRunCost, imageVersionCost, type ImageQuality } from '#domain/generation/image-prices.ts'
import { QualityChoice } from '#app/generation/quality-choice.tsx'

/** The generator page, whose action takes the template's form with or without JavaScript. */
const GENERATOR_ACTION = '/generate'
const NO_PHOTO = 'Please upload a pet photo first'
/** What a guest is told (the words the API's refusal of a guest has always used). */
const LOG_IN_FIRST = 'Authentication expired, please log in again'

/**
 * Applies a template to the visitor's own pet photo: posts the generator's multipart fields with
 * style 'template' to /generate's action (through a fetcher with JavaScript, so the modal stays
 * open and the new task goes to the task store), or hands the template to /generate for
 * customising. Opened by ?template=<id>; closing follows the link without it.
 */
export function UseTemplateModal({
  image,
  imageCost,
  hdCost,
  closeHref,
}: {
  image: ApplicableTemplate
  /** What one version costs. */
  imageCost: number
  /** What one HD version costs. */
  hdCost: number
  closeHref: string
}) {
  const navigate = useNavigate()
  const signedIn = Boolean(useRootData()?.user)
  const store = useTaskStore()
  const fetcher = useFetcher<GenerationActionData>()
  const answer = fetcher.data
  const [photoPreview, setPhotoPreview] = useState<string | null>(null)
  const [noPhoto, setNoPhoto] = useState(false)
  const [photoCheck, checkPhoto] = usePhotoCheck()
  const [variants, setVariants] = useState(1)
  const [quality, setQuality] = useState<ImageQuality>('standard')
  // The dialog makes a portrait of one pet; several are chosen on /generate (?template=).
  const prices = { imageGenerationCreditCost: imageCost, hdImageCost: hdCost, extraPetCost: 0 }
  const { otherParams, prompt } = image.parameters
  const sending = fetcher.state !== 'idle'
  const queued = !sending && answer?.taskId !== undefined
  // A refusal about the photo shows beside it; any other above the buttons.
  const { images: photoErrors, ...otherErrors } = (!sending && answer?.result?.error) || {}
  const error = noPhoto ? NO_PHOTO : (Object.values(otherErrors).flat().find(Boolean) ?? null)

  // Frees each preview once it is replaced or the modal closes.
  useEffect(() => {
    if (photoPreview) return () => URL.revokeObjectURL(photoPreview)
  }, [photoPreview])

  // The new task goes to the task store once: the sidebar lists it and opens.
  const latest = useRef({ store, name: image.name })
  useEffect(() => {
    latest.current = { store, name: image.name }
  })
  useEffect(() => {
    if (answer?.taskId === undefined) return
    const { store, name } = latest.current
    store?.submitted({ id: answer.taskId, type: 'image', source: 'template', description: `Template: ${name}` })
  }, [answer])

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    setNoPhoto(!photoPreview)
    if (!photoPreview) return
    if (!signedIn) {
      window.alert(LOG_IN_FIRST)
      return navigate('/login')
    }
    fetcher.submit(inPageSubmission(event.currentTarget), {
      method: 'post',
      encType: 'multipart/form-data',
      action: GENERATOR_ACTION,
    })
  }

  function customizeInGenerator() {
    const handoff: TemplateHandoff = {
      prompt: prompt || otherParams.templatePrompt,
      otherParams,
      templateId: image._id,
    }
    sessionStorage.setItem(TEMPLATE_HANDOFF_KEY, JSON.stringify(handoff))
  }

  return (
    <UrlModal title={`Use template: ${image.name}`} closeHref={closeHref} closeLabel="Close">
      <div className="use-template-images">
        <img src={image.thumbnailUrl} alt={`Template ${image.name}`} width={image.width} height={image.height} />
        {photoPreview ? (
          <img src={photoPreview} alt="Your pet photo" />
        ) : (
          <div className="photo-placeholder">Your photo</div>
        )}
      </div>
      {otherParams.templatePrompt ? <p className="muted template-prompt">{otherParams.templatePrompt}</p> : null}

      {queued ? (
        <p className="form-success" role="status">
          Your portrait is being generated. Follow it in Today&apos;s Tasks, or find it later in your{' '}
          <Link to="/history">History</Link>.
        </p>
      ) : (
        // Real fields, so the same request is sent whether or not this script runs. Without script the
        // generator page's action answers with a page (the new task on /generate, or the form's errors).
        <form method="post" encType="multipart/form-data" action={GENERATOR_ACTION} onSubmit={submit}>
          <input type="hidden" name="style" value="template" />
          <input type="hidden" name="templatePrompt" value={otherParams.templatePrompt} />
          <input type="hidden" name="prompt" value={prompt} />
          <input type="hidden" name="template_id" value={image._id} />
          <div className="field">
            <label htmlFor="template-photo">Your pet photo</label>
            <input
              id="template-photo"
              type="file"
              name="images"
              accept={ACCEPTED_IMAGES}
              required
              onChange={(event) => {
                const file = event.currentTarget.files?.[0]
                setPhotoPreview(file ? URL.createObjectURL(file) : null)
                void checkPhoto(file)
              }}
            />
            <FieldError errors={photoErrors ?? undefined} />
            <PhotoCheckNote state={photoCheck} />
          </div>
          <QualityChoice standardCost={imageCost} hdCost={hdCost} value={quality} onChange={setQuality} />
          <VersionsChoice unitCost={imageVersionCost(prices, quality)} value={variants} onChange={setVariants} />
          {error ? (
            <p className="form-error" role="alert">
              {error} {answer?.needPurchase ? <Link to="/purchase-credits">Purchase Credits</Link> : null}
            </p>
          ) : null}
          <div className="row">
            <button type="submit" className="button" disabled={sending}>
              {sending ? 'Submitting…' : `Generate my portrait (${imageRunCost(prices, variants, quality)} credits)`}
            </button>
            <Link to="/generate" className="button secondary" onClick={customizeInGenerator}>
              Customize in generator
            </Link>
          </div>
        </form>
      )}
    </UrlModal>
  )
}
