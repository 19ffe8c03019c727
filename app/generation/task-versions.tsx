import { Form, useFetcher } from '@remix-run/react'
import { useEffect, useRef, type FormEvent } from 'react'
import { downloadName, downloadUrl, versionName, versionsZipUrl } from '#app/generation/download-names.ts'
import type { FavouriteActionData } from '#app/generation/generation-forms.server.ts'
import { useTaskStore } from '#app/generation/task-store-context.tsx'
import { inPageSubmission } from '#app/utils/in-page-answer.ts'
import type { ClientTask } from '#domain/generation/task-view.ts'
import { PrintNote } from './print-note.tsx'
import { ShareForm } from '#app/sharing/share-form.tsx'
import { OrderPrintLink } from '#app/prints/order-print-link.tsx'
import { MadeBy } from './made-by.tsx'
import { previewSrcSet, previewUrl } from '#domain/media/media-url.ts'

/** The version grid's cells (generate.css): half a phone's width, at most about 300 px wider up. */
const VERSION_SIZES = '(min-width: 720px) 300px, 50vw'

/**
 * Every version of a finished image task: a thumbnail each (a WebP preview of the picture, whose
 * full size is a download away), its download, and a plain form that
 * makes it the favourite (posted to the page's own `action`, so it works without JavaScript), plus
 * one zip of all of them. Share posts to /shares (its public page, and the Unshare buttons). `enhance`: with JavaScript the favourite form goes through a fetcher and
 * the page's shown task is updated in place through the task store (the generator pages, whose loader shows a task only once).
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
  const store = useTaskStore()
  const fetcher = useFetcher<FavouriteActionData>()
  const answer = fetcher.data
  const images = task.images ?? []
  const favourite = task.favouriteIndex ?? 0
  const error = answer?.result ? (Object.values(answer.result.error ?? {}).flat()[0] ?? FAVOURITE_FAILED) : null

  // The chosen version becomes the shown task's favourite, once.
  const latest = useRef({ task, store })
  useEffect(() => {
    latest.current = { task, store }
  })
  useEffect(() => {
    if (answer?.favouriteIndex === undefined) return
    const { task, store } = latest.current
    const image = task.images?.find((candidate) => candidate.index === answer.favouriteIndex)
    if (!image) return
    store?.changed({ ...task, favouriteIndex: image.index, result: { imageUrl: image.url, print: image.print } })
  }, [answer])

  function chooseInPlace(event: FormEvent<HTMLFormElement>) {
    if (!enhance) return
    event.preventDefault()
    fetcher.submit(inPageSubmission(event.currentTarget), { method: 'post', action })
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
                src={previewUrl(image.url, 480)}
                srcSet={previewSrcSet(image.url)}
                sizes={VERSION_SIZES}
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
                {image.plainUrl ? (
                  <a
                    className="button secondary"
                    href={downloadUrl(image.plainUrl, versionName(name, image.index))}
                    download
                  >
                    Without the name
                  </a>
                ) : null}
                <OrderPrintLink taskId={task.id} index={image.index} />
                <ShareForm taskId={task.id} index={image.index} />
                {isFavourite ? null : (
                  <Form method="post" action={action} onSubmit={chooseInPlace}>
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

const FAVOURITE_FAILED = 'The favourite could not be saved. Please try again.'
