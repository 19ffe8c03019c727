import { Form } from '@remix-run/react'
import { useState, type FormEvent } from 'react'
import {
  downloadName,
  downloadUrl,
  versionName,
  TASK_UPDATED_EVENT,
  versionsZipUrl,
  type ClientTask,
} from '#app/generation/task-client.ts'
import type { TaskImage } from '#domain/generation/task-view.ts'
import { PrintNote } from './print-note.tsx'
import { ShareForm } from '#app/sharing/share-form.tsx'
import { MadeBy } from './made-by.tsx'

/**
 * Every version of a finished image task: a thumbnail each, its download, and a plain form that
 * makes it the favourite (posted to the page's own `action`, so it works without JavaScript), plus
 * one zip of all of them. Share posts to /shares (its public page, and the Unshare buttons). `enhance`: with JavaScript the favourite goes through the API instead and
 * the page's shown task is updated in place (the generator pages, whose loader shows a task only once).
 */
export function TaskVersions({
  task,
  action,
  enhance = false,
}: {
  task: Pick<ClientTask, 'id' | 'type' | 'source' | 'images' | 'favouriteIndex' | 'createdAt' | 'subject'>
  action: string
  enhance?: boolean
}) {
  const [error, setError] = useState<string | null>(null)
  const images = task.images ?? []
  const favourite = task.favouriteIndex ?? 0

  async function chooseInPlace(event: FormEvent<HTMLFormElement>, image: TaskImage) {
    if (!enhance) return
    event.preventDefault()
    const response = await fetch(`/api/async-image/task/${task.id}/favourite`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ index: image.index }),
    }).catch(() => null)
    if (!response?.ok) {
      const body = (await response?.json().catch(() => null)) as { message?: string } | null
      return setError(body?.message ?? 'The favourite could not be saved. Please try again.')
    }
    setError(null)
    const detail = { ...task, favouriteIndex: image.index, result: { imageUrl: image.url, print: image.print } }
    window.dispatchEvent(new CustomEvent(TASK_UPDATED_EVENT, { detail }))
  }

  const name = downloadName(task)
  return (
    <div className="task-versions">
      <ul className="version-list">
        {images.map((image) => {
          const isFavourite = image.index === favourite
          return (
            <li key={image.index} className="version-card" data-favourite={isFavourite || undefined}>
              <img
                src={image.url}
                alt={`Version ${image.index + 1} of your portrait`}
                width={image.width ?? undefined}
                height={image.height ?? undefined}
                loading="lazy"
              />
              <p className="version-label">
                Version {image.index + 1}
                {isFavourite ? <strong> · Favourite</strong> : null}
              </p>
              <PrintNote print={image.print} />
              <MadeBy image={image} />
              <div className="row">
                <a className="button secondary" href={downloadUrl(image.url, versionName(name, image.index))} download>
                  Download
                </a>
                <ShareForm taskId={task.id} index={image.index} />
                {isFavourite ? null : (
                  <Form method="post" action={action} onSubmit={(event) => void chooseInPlace(event, image)}>
                    <input type="hidden" name="intent" value="favourite" />
                    <input type="hidden" name="task" value={task.id} />
                    <input type="hidden" name="index" value={image.index} />
                    <button type="submit" className="button secondary">
                      Make favourite
                    </button>
                  </Form>
                )}
              </div>
            </li>
          )
        })}
      </ul>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <a className="button" href={versionsZipUrl(task.id)} download>
        Download all ({images.length} versions, zip)
      </a>
    </div>
  )
}
