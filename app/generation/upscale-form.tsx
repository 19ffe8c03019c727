import { MAX_UPSCALED_SIDE, upscaleScales } from '#domain/generation/upscale-params.ts'
import type { TaskImage } from '#domain/generation/task-view.ts'
import { credits } from './credits-label.ts'

/**
 * "Make it bigger" under a finished portrait: a plain form posting to the page's own action
 * (task-family-form.server.ts), so it works without JavaScript; radios large enough for a thumb.
 * A version enlarged without the model (its Lanczos fallback) says so here. Decision 0036.
 */

interface UpscaleFormProps {
  task: { id: string; images?: TaskImage[] }
  cost: number
  action: string
  open: boolean
}

const fits = (image: TaskImage | undefined, scale: number) =>
  !image?.width || !image.height || Math.max(image.width, image.height) * scale <= MAX_UPSCALED_SIDE

export function UpscaleForm({ task, cost, action, open }: UpscaleFormProps) {
  const images = task.images ?? []
  const scales = upscaleScales.filter((scale) => images.length === 0 || images.some((image) => fits(image, scale)))
  return (
    <>
      {images.some((image) => image.enlargedWithoutModel) ? (
        <p className="muted" role="note">
          Enlarged without the model: the upscaler could not load, so this was resized smoothly instead.
        </p>
      ) : null}
      {scales.length > 0 ? (
        <details className="upscale" open={open}>
          <summary>Make it bigger</summary>
          <form method="post" action={action}>
            <input type="hidden" name="intent" value="upscale" />
            <input type="hidden" name="taskId" value={task.id} />
            {images.length > 1 ? (
              <fieldset>
                <legend>Which version?</legend>
                <div className="row">
                  {images.map((image) => (
                    <label key={image.index}>
                      <input type="radio" name="index" value={image.index} defaultChecked={image.index === 0} /> Version{' '}
                      {image.index + 1}
                    </label>
                  ))}
                </div>
              </fieldset>
            ) : (
              <input type="hidden" name="index" value={images[0]?.index ?? 0} />
            )}
            <fieldset>
              <legend>How much bigger?</legend>
              <div className="row">
                {scales.map((scale) => (
                  <label key={scale}>
                    <input type="radio" name="scale" value={scale} defaultChecked={scale === scales[0]} /> ×{scale}
                    {images[0]?.width && images[0].height
                      ? ` (${images[0].width * scale}×${images[0].height * scale} px)`
                      : ''}
                  </label>
                ))}
              </div>
            </fieldset>
            <p className="muted">
              Up to {MAX_UPSCALED_SIDE} px on the long side. Costs {credits(cost)}, refunded if it fails.
            </p>
            <button type="submit" className="button secondary">
              Make it bigger
            </button>
          </form>
        </details>
      ) : null}
    </>
  )
}
