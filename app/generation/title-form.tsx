import { useActionData } from '@remix-run/react'
import type { TaskImage } from '#domain/generation/task-view.ts'
import type { TitleActionData } from './title-form.server.ts'
import { TitleFields } from './title-fields.tsx'

/**
 * Under a finished portrait: set, change or remove the name on a version (issue 41), free and
 * instant: a plain form posting to the page's own action (title-form.server.ts), so it works
 * without JavaScript.
 */
export function TitleForm({ taskId, image, action }: { taskId: string; image: TaskImage; action: string }) {
  const answer = useActionData<TitleActionData>()
  const refusal = answer?.title?.taskId === taskId ? answer.title.message : null
  return (
    <details className="title-form" open={Boolean(refusal)}>
      <summary>{image.title ? 'Change the name on the portrait' : 'Add a name to the portrait'}</summary>
      <form method="post" action={action}>
        <input type="hidden" name="intent" value="title" />
        <input type="hidden" name="task" value={taskId} />
        <input type="hidden" name="index" value={image.index} />
        <TitleFields
          names={{ title: 'title', style: 'style', font: 'font' }}
          initial={image.title}
          errors={refusal ? [refusal] : undefined}
          idPrefix={`title-${taskId}-${image.index}`}
        />
        <p className="muted">
          Free: the name is set on the portrait again, not generated again. Leave it empty to remove it.
        </p>
        <button type="submit" className="button">
          Save the name
        </button>
      </form>
    </details>
  )
}
