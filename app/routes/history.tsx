import { parseWithZod } from '@conform-to/zod'
import { json, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { z } from 'zod'
import {
  deleteFinishedTask,
  historyQuerySchema,
  listHistory,
  type HistoryItem,
} from '#domain/generation/user-tasks.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'
import type { TaskKind } from '#platform/db-schema.ts'
import { readForm } from '#app/utils/form-body.server.ts'
import { formErrorResponse, type FormActionData } from '#app/utils/form-errors.server.ts'
import { seo } from '#app/document/seo.ts'
import { downloadUrl, favouriteDownloadName } from '#app/generation/download-names.ts'
import { PrintNote } from '#app/generation/print-note.tsx'
import { TaskFamilyControls } from '#app/generation/task-family.tsx'
import { extraPetsCost } from '#domain/generation/image-prices.ts'
import { answerTaskFamilyForm, isTaskFamilyForm } from '#app/generation/task-family-form.server.ts'
import { getSystemConfig } from '#domain/credits/system-config.server.ts'
import { TaskVersions } from '#app/generation/task-versions.tsx'
import { ShareForm } from '#app/sharing/share-form.tsx'
import { OrderPrintLink } from '#app/prints/order-print-link.tsx'
import { answerFavouriteForm, isFavouriteForm } from '#app/generation/generation-forms.server.ts'
import { deleteTaskPhoto, tasksWithPhoto } from '#domain/user-data/task-photo.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { previewSrcSet, previewUrl } from '#domain/media/media-url.ts'

export const meta: MetaFunction = () => seo({ title: 'My Resources', description: 'Your generated images and videos.' })

/** The kinds of resource the page lists, each a tab. */
const resourceKinds = {
  image: { tab: 'Images', noun: 'image', empty: 'No images yet.' },
  video: { tab: 'Videos', noun: 'video', empty: 'No videos yet.' },
} as const satisfies Record<TaskKind, unknown>

const kindSchema = z.enum(['image', 'video']).catch('image')
const PAGE_SIZE = 10

function readQuery(request: Request) {
  const params = new URL(request.url).searchParams
  return {
    kind: kindSchema.parse(params.get('type') ?? undefined),
    page: historyQuerySchema.parse({ page: params.get('page') ?? undefined, limit: PAGE_SIZE }).page,
  }
}

const pageHref = (kind: TaskKind, page: number) => `/history?type=${kind}&page=${page}`

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request)
  const { kind, page } = readQuery(request)
  const [{ items, pagination }, settings] = await Promise.all([
    listHistory(getDb(), user.id, kind, { page, limit: PAGE_SIZE }),
    getSystemConfig(getDb()),
  ])
  // Past the last page (its last item was just deleted, say): show the last one instead.
  if (items.length === 0 && pagination.pages > 0 && page > pagination.pages) {
    throw redirect(pageHref(kind, pagination.pages))
  }
  const { imageGenerationCreditCost: cost, freeLikenessFixes, upscaleCost, extraPetCost } = settings
  const withPhoto = await tasksWithPhoto(
    getDb(),
    user.id,
    items.map((item) => item.id),
  )
  return json({ kind, items, pagination, cost, extraPetCost, freeLikenessFixes, upscaleCost, withPhoto })
}

const deleteSchema = z.object({
  id: z.string({ required_error: 'Nothing to delete' }),
  type: z.enum(['image', 'video']),
})

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request)
  const form = await readForm(request)
  // An image's Make favourite, Re-roll or "Doesn't look like my pet?" form.
  if (isFavouriteForm(form)) {
    const { kind, page } = readQuery(request)
    return answerFavouriteForm(form, user.id, () => pageHref(kind, page))
  }
  if (isTaskFamilyForm(form)) return answerTaskFamilyForm(request, form, user.id)
  if (form.get('intent') === 'delete-photo') return answerDeletePhoto(request, form, user.id)
  const submission = parseWithZod(form, { schema: deleteSchema })
  if (submission.status !== 'success') return json<FormActionData>({ result: submission.reply() }, { status: 400 })
  try {
    await deleteFinishedTask(getDb(), user.id, submission.value.id, submission.value.type)
  } catch (error) {
    return formErrorResponse(error, submission)
  }
  // Back to the same page, which the loader reads afresh.
  const { kind, page } = readQuery(request)
  return redirect(pageHref(kind, page))
}

/** "Delete my photo now": the uploaded photo goes, the portrait stays; back to the same page. */
async function answerDeletePhoto(request: Request, form: FormData, userId: string) {
  try {
    await deleteTaskPhoto(getDb(), userId, String(form.get('id') ?? ''))
  } catch (error) {
    if (!(error instanceof HttpError)) throw error
    return json<FormActionData>(
      { result: { status: 'error', error: { '': [error.message] } } },
      { status: error.status },
    )
  }
  const { kind, page } = readQuery(request)
  return redirect(pageHref(kind, page))
}

export default function History() {
  const { kind, items, pagination, cost, extraPetCost, freeLikenessFixes, upscaleCost, withPhoto } =
    useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  // A refused re-roll or fix shows beside its own card (TaskFamilyControls).
  const deletion = actionData && 'result' in actionData ? actionData.result : undefined
  const error = deletion?.error?.['']?.[0] ?? Object.values(deletion?.error ?? {}).flat()[0]

  return (
    <section className="history">
      <h1>My Resources</h1>
      <nav className="history-tabs" aria-label="Resource type">
        {(Object.keys(resourceKinds) as TaskKind[]).map((value) => (
          <Link key={value} to={pageHref(value, 1)} aria-current={value === kind ? 'page' : undefined}>
            {resourceKinds[value].tab}
          </Link>
        ))}
      </nav>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {items.length === 0 ? (
        <div className="card history-empty">
          <p>{resourceKinds[kind].empty}</p>
          {kind === 'image' ? (
            <Link className="button" to="/generate">
              Generate a portrait
            </Link>
          ) : null}
        </div>
      ) : (
        <ul className="history-grid">
          {items.map((item, index) => (
            <HistoryCard
              first={index === 0}
              key={item.id}
              item={item}
              kind={kind}
              page={pagination.page}
              cost={cost + extraPetsCost({ extraPetCost }, item.pets?.length ?? 1)}
              freeLikenessFixes={freeLikenessFixes}
              upscaleCost={upscaleCost}
              hasPhoto={withPhoto.includes(item.id)}
            />
          ))}
        </ul>
      )}
      {pagination.pages > 1 ? (
        <nav className="history-pages" aria-label="Pages">
          {pagination.page > 1 ? <Link to={pageHref(kind, pagination.page - 1)}>← Previous</Link> : <span />}
          <span>
            Page {pagination.page} of {pagination.pages}
          </span>
          {pagination.page < pagination.pages ? <Link to={pageHref(kind, pagination.page + 1)}>Next →</Link> : <span />}
        </nav>
      ) : null}
    </section>
  )
}

interface HistoryCardProps {
  item: HistoryItem
  kind: TaskKind
  page: number
  /** An image version's cost (with the portrait's extra pets) and the free fixes a run includes, for the re-roll and fix forms. */
  cost: number
  freeLikenessFixes: number
  upscaleCost: number
  /** The photo it was made from is still kept: "Delete my photo now" is offered. */
  hasPhoto: boolean
  /** The page's first card: its picture is the largest thing a phone's first screen shows. */
  first: boolean
}

/** Grid cells of history.css: the page's width on a phone, at most about 320 px wider up. */
const CELL_SIZES = '(min-width: 720px) 320px, 100vw'

function HistoryCard({ item, kind, page, cost, freeLikenessFixes, upscaleCost, hasPhoto, first }: HistoryCardProps) {
  const navigation = useNavigation()
  const deleting = navigation.formData?.get('id') === item.id && !navigation.formData.has('intent')
  const { noun } = resourceKinds[kind]
  return (
    <li className="card history-card">
      {kind === 'image' && item.images.length > 1 ? (
        <TaskVersions task={{ ...item, type: kind }} action={pageHref(kind, page)} />
      ) : item.url ? (
        kind === 'video' ? (
          <video src={item.url} controls preload="metadata" />
        ) : (
          <>
            <img
              src={previewUrl(item.url, 480)}
              srcSet={previewSrcSet(item.url)}
              sizes={CELL_SIZES}
              alt={`Generated ${noun}`}
              loading={first ? 'eager' : 'lazy'}
              fetchPriority={first ? 'high' : undefined}
            />
            <PrintNote print={item.images.find((image) => image.index === item.favouriteIndex)?.print} />
          </>
        )
      ) : null}
      <p className="muted history-dates">
        Created {new Date(item.createdAt).toLocaleDateString()}
        {item.expiresAt ? <> · Expires {new Date(item.expiresAt).toLocaleDateString()}</> : null}
      </p>
      <div className="row">
        {item.url ? (
          <a
            className="button secondary"
            href={downloadUrl(item.url, favouriteDownloadName({ ...item, type: kind }))}
            download
          >
            Download
          </a>
        ) : null}
        <Form
          method="post"
          action={pageHref(kind, page)}
          onSubmit={(event) => {
            if (!window.confirm(`Delete this ${noun}? This cannot be undone.`)) event.preventDefault()
          }}
        >
          <input type="hidden" name="id" value={item.id} />
          <input type="hidden" name="type" value={kind} />
          <button type="submit" className="button danger" disabled={deleting}>
            {deleting ? 'Deleting…' : 'Delete'}
          </button>
        </Form>
        {kind === 'image' ? (
          <a className="button secondary" href={`/generate?task=${item.id}`}>
            Open
          </a>
        ) : null}
        {hasPhoto ? (
          <Form method="post" action={pageHref(kind, page)}>
            <input type="hidden" name="id" value={item.id} />
            <button type="submit" name="intent" value="delete-photo" className="button secondary">
              Delete my photo now
            </button>
          </Form>
        ) : null}
      </div>
      {kind === 'image' && item.images.length === 1 ? (
        <>
          <OrderPrintLink taskId={item.id} index={item.images[0].index} />
          <ShareForm taskId={item.id} index={item.images[0].index} />
        </>
      ) : null}
      {kind === 'image' ? (
        <TaskFamilyControls
          task={{ id: item.id, status: 'completed', images: item.images, pets: item.pets }}
          cost={cost}
          family={null}
          freeLikenessFixes={freeLikenessFixes}
          upscaleCost={upscaleCost}
          action={pageHref(kind, page)}
        />
      ) : null}
    </li>
  )
}

export function ErrorBoundary() {
  return (
    <section className="card center-card" role="alert">
      <h1>My Resources</h1>
      <p>Failed to load history, please try again later</p>
      <Link className="button" to="/history">
        Try again
      </Link>
    </section>
  )
}
