import { Link, useNavigate, useRevalidator } from '@remix-run/react'
import { type FormEvent, useEffect, useState } from 'react'
import { UrlModal } from '#app/components/url-modal.tsx'
import { type TemplateJson, TEMPLATE_HANDOFF_KEY, type TemplateHandoff } from '#domain/gallery/template-json.ts'
import { announceTaskSubmitted } from '#app/generation/task-client.ts'
import { PhotoCheckNote, usePhotoCheck } from '#app/generation/photo-check-note.tsx'
import { ACCEPTED_IMAGES } from '#app/utils/accepted-images.ts'
import { VersionsChoice } from '#app/generation/versions-choice.tsx'
import { imageRunCost, imageVersionCost, type ImageQuality } from '#domain/generation/image-generation-form.ts'
import { QualityChoice } from '#app/generation/quality-choice.tsx'

type Outcome =
  | { kind: 'idle' }
  | { kind: 'sending' }
  | { kind: 'queued' }
  | { kind: 'error'; message: string; needPurchase: boolean }

const GENERATE_API = '/api/async-image/generate'
const NO_SCRIPT_ACTION = '/generate'
const NO_PHOTO = 'Please upload a pet photo first'
const FAILED = 'Failed to generate the image, please try again later.'

/**
 * Applies a template to the visitor's own pet photo: POST /api/async-image/generate with style
 * 'template' (the spec's multipart fields), or hands the template to /generate for customising.
 * Opened by ?template=<id>; closing follows the link without it.
 */
export function UseTemplateModal({
  image,
  imageCost,
  hdCost,
  closeHref,
}: {
  image: TemplateJson
  /** What one version costs. */
  imageCost: number
  /** What one HD version costs. */
  hdCost: number
  closeHref: string
}) {
  const navigate = useNavigate()
  const revalidator = useRevalidator()
  const [photoPreview, setPhotoPreview] = useState<string | null>(null)
  const [outcome, setOutcome] = useState<Outcome>({ kind: 'idle' })
  const [photoCheck, checkPhoto] = usePhotoCheck()
  const [variants, setVariants] = useState(1)
  const [quality, setQuality] = useState<ImageQuality>('standard')
  const prices = { imageGenerationCreditCost: imageCost, hdImageCost: hdCost }
  const { otherParams, prompt } = image.parameters

  // Frees each preview once it is replaced or the modal closes.
  useEffect(() => {
    if (photoPreview) return () => URL.revokeObjectURL(photoPreview)
  }, [photoPreview])

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    if (!photoPreview) return setOutcome({ kind: 'error', message: NO_PHOTO, needPurchase: false })
    setOutcome({ kind: 'sending' })
    try {
      const response = await fetch(GENERATE_API, { method: 'POST', body: new FormData(event.currentTarget) })
      const body = (await response.json().catch(() => ({}))) as {
        taskId?: string
        message?: string
        needPurchase?: boolean
      }
      if (response.status === 401) {
        window.alert(body.message ?? 'Please log in first')
        return navigate('/login')
      }
      if (!response.ok || !body.taskId) {
        return setOutcome({ kind: 'error', message: body.message ?? FAILED, needPurchase: Boolean(body.needPurchase) })
      }
      setOutcome({ kind: 'queued' })
      announceTaskSubmitted({
        id: body.taskId,
        type: 'image',
        source: 'template',
        description: `Template: ${image.name}`,
      })
      revalidator.revalidate() // the header's credit balance changed
    } catch {
      setOutcome({ kind: 'error', message: FAILED, needPurchase: false })
    }
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

      {outcome.kind === 'queued' ? (
        <p className="form-success" role="status">
          Your portrait is being generated. Follow it in Today&apos;s Tasks, or find it later in your{' '}
          <Link to="/history">History</Link>.
        </p>
      ) : (
        // Real fields, so the same request is sent whether or not this script runs. Without script the
        // form posts to the generator page, whose action takes the same fields and answers with a page
        // (the new task on /generate, or the form's errors), never the API's JSON.
        <form method="post" encType="multipart/form-data" action={NO_SCRIPT_ACTION} onSubmit={submit}>
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
            <PhotoCheckNote state={photoCheck} />
          </div>
          <QualityChoice standardCost={imageCost} hdCost={hdCost} value={quality} onChange={setQuality} />
          <VersionsChoice unitCost={imageVersionCost(prices, quality)} value={variants} onChange={setVariants} />
          {outcome.kind === 'error' ? (
            <p className="form-error" role="alert">
              {outcome.message} {outcome.needPurchase ? <Link to="/purchase-credits">Purchase Credits</Link> : null}
            </p>
          ) : null}
          <div className="row">
            <button type="submit" className="button" disabled={outcome.kind === 'sending'}>
              {outcome.kind === 'sending'
                ? 'Submitting…'
                : `Generate my portrait (${imageRunCost(prices, variants, quality)} credits)`}
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
