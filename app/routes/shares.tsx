import { json, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react'
import { seo } from '#app/document/seo.ts'
import { readForm } from '#app/utils/form-body.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import {
  createSharePage,
  deleteSharePage,
  listUserSharePages,
  sharePagePath,
  shareSchema,
} from '#domain/sharing/share-pages.server.ts'
import { getDb } from '#platform/db.server.ts'

/**
 * /shares: the user's share pages, each with its link and an Unshare button; the Share forms on
 * the result panel and /history post here. Plain forms, so sharing works without JavaScript.
 */

export const meta: MetaFunction = () => seo({ title: 'My share pages', description: 'Portraits you shared.' })

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request)
  const pages = await listUserSharePages(getDb(), user.id)
  return json({ pages: pages.map((page) => ({ ...page, path: sharePagePath(page.slug) })) })
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request)
  const form = await readForm(request)
  try {
    if (form.get('intent') === 'unshare') {
      await deleteSharePage(getDb(), user.id, String(form.get('slug') ?? ''))
      return redirect('/shares')
    }
    const input = shareSchema.safeParse(Object.fromEntries(form))
    if (!input.success) return json({ error: input.error.issues[0].message }, { status: 400 })
    const { slug } = await createSharePage(getDb(), user.id, String(form.get('task') ?? ''), input.data)
    return redirect(`/shares?made=${slug}`)
  } catch (error) {
    if (error instanceof HttpError) {
      return json({ error: error.message }, { status: error.status, headers: error.headers })
    }
    throw error
  }
}

export default function SharePages() {
  const { pages } = useLoaderData<typeof loader>()
  const failure = useActionData<typeof action>()
  return (
    <section className="card share-list">
      <h1>My share pages</h1>
      {failure ? (
        <p className="form-error" role="alert">
          {failure.error}
        </p>
      ) : null}
      {pages.length === 0 ? (
        <p>
          Nothing shared yet. Share a finished portrait from <Link to="/history">My Resources</Link>.
        </p>
      ) : (
        <ul>
          {pages.map((page) => (
            <li key={page.slug} className="row">
              <a href={page.path}>{page.path}</a>
              <span className="muted">
                Version {page.version_index + 1}
                {page.listed ? ' · listed by search engines' : ''}
              </span>
              <Form method="post">
                <input type="hidden" name="intent" value="unshare" />
                <input type="hidden" name="slug" value={page.slug} />
                <button type="submit" className="button secondary">
                  Unshare
                </button>
              </Form>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
