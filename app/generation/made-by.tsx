import type { TaskImage } from '#domain/generation/task-view.ts'

/** The small print under a picture: which provider and model made it (decision 0033), when recorded. */
export function MadeBy({ image }: { image: Pick<TaskImage, 'provider' | 'model'> | undefined }) {
  if (!image?.provider) return null
  return (
    <p className="muted made-by">
      <small>
        Made by {image.provider}
        {image.model ? ` (${image.model})` : ''}
      </small>
    </p>
  )
}
