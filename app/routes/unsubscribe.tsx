import { type ActionFunctionArgs, json, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react'
import { setTaskEmails, userOfUnsubscribeToken } from '#domain/accounts/task-email-preference.server.ts'
import { getDb } from '#platform/db.server.ts'
import { seo } from '#app/document/seo.ts'

export const meta = () => seo({ title: 'Unsubscribe', description: 'Stop the emails about finished work.' })

function tokenOf(request: Request) {
  return new URL(request.url).searchParams.get('token') ?? ''
}

/** GET shows a button (link checkers and mail scanners open links; only a POST unsubscribes). */
export async function loader({ request }: LoaderFunctionArgs) {
  const token = tokenOf(request)
  const valid = userOfUnsubscribeToken(token) !== null
  return json({ token, valid }, { status: valid ? 200 : 400 })
}

/**
 * The email's signed link: no sign-in, no cookie. Also the RFC 8058 one-click POST that mail
 * providers send (`List-Unsubscribe=One-Click`), for which any 2xx answer is success.
 */
export async function action({ request }: ActionFunctionArgs) {
  const userId = userOfUnsubscribeToken(tokenOf(request))
  if (!userId) return json({ done: false }, { status: 400 })
  await setTaskEmails(getDb(), userId, false)
  return json({ done: true })
}

export default function Unsubscribe() {
  const { token, valid } = useLoaderData<typeof loader>()
  const answer = useActionData<typeof action>()
  return (
    <section className="card form-card">
      <h1>Emails when work ends</h1>
      {answer?.done ? (
        <p className="form-success" role="status">
          Done: you will no longer get an email when your work ends. You can switch them back on in your{' '}
          <Link to="/profile">profile</Link>.
        </p>
      ) : valid ? (
        <Form method="post" action={`/unsubscribe?token=${encodeURIComponent(token)}`}>
          <p>Stop the emails that tell you when a video, or an image that took long, is done?</p>
          <button type="submit" className="button wide">
            Unsubscribe
          </button>
        </Form>
      ) : (
        <p className="form-error" role="alert">
          This unsubscribe link is not valid. You can switch the emails off in your <Link to="/profile">profile</Link>.
        </p>
      )}
    </section>
  )
}
