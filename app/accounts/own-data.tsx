import { Form, useSearchParams } from '@remix-run/react'
import type { ExportView } from '#domain/user-data/data-exports.server.ts'

/** The answer of an own-data form, when it belongs to that form. */
type Answer = { message?: string; error?: string } | undefined

/**
 * /profile's own-data section: "Download my data" (the link once the worker has made it) and
 * "Delete my account". Plain forms: they work without JavaScript, and stack on a phone.
 */
export function DownloadMyData({ latest, answer, busy }: { latest: ExportView | null; answer: Answer; busy: boolean }) {
  return (
    <section className="own-data" aria-labelledby="own-data-title">
      <h2 id="own-data-title">Your data</h2>
      <p>
        Get a zip with your profile, your credit history, your portraits with their photos and settings, your pets and
        your payment proofs. We email you the link; it also shows here and works for 24 hours.
      </p>
      {latest?.status === 'ready' && latest.url ? (
        <p>
          <a className="button secondary" href={latest.url} download>
            Download my data (zip)
          </a>{' '}
          <small>Link valid until {new Date(latest.expiresAt).toUTCString()}</small>
        </p>
      ) : latest?.status === 'pending' ? (
        <p role="status">Your data export is being made. Reload this page in a minute to get the link.</p>
      ) : latest?.status === 'failed' ? (
        <p className="form-error">Your last data export could not be made. Please ask again.</p>
      ) : null}
      <AnswerLine answer={answer} />
      <Form method="post">
        <button type="submit" name="intent" value="export" className="button secondary" disabled={busy}>
          {latest?.status === 'ready' ? 'Make a new copy of my data' : 'Download my data'}
        </button>
      </Form>
    </section>
  )
}

export function DeleteMyAccount({
  withGoogle,
  reauthMinutes,
  answer,
  busy,
}: {
  withGoogle: boolean
  reauthMinutes: number
  answer: Answer
  busy: boolean
}) {
  return (
    <section className="own-data danger-zone" aria-labelledby="delete-account-title">
      <h2 id="delete-account-title">Delete my account</h2>
      <p>
        This deletes your account, your portraits, photos, pets and shared pages at once, and signs you out. It cannot
        be undone. Payment records are kept for accounting, without your name or email.
      </p>
      {withGoogle ? (
        <p>
          You sign in with Google, so to confirm it is you: sign out, sign in with Google again, then delete within{' '}
          {reauthMinutes} minutes.
        </p>
      ) : null}
      <AnswerLine answer={answer} />
      <Form method="post" className="delete-account-form">
        <input type="hidden" name="intent" value="delete-account" />
        {withGoogle ? null : (
          <div className="field">
            <label htmlFor="delete-password">Your password</label>
            <input id="delete-password" name="password" type="password" autoComplete="current-password" required />
          </div>
        )}
        <div className="field">
          <label htmlFor="delete-confirmation">Type DELETE to confirm</label>
          <input
            id="delete-confirmation"
            name="confirmation"
            type="text"
            autoComplete="off"
            autoCapitalize="characters"
            pattern="DELETE"
            required
          />
        </div>
        <button type="submit" className="button danger wide" disabled={busy}>
          Delete my account
        </button>
      </Form>
    </section>
  )
}

function AnswerLine({ answer }: { answer: Answer }) {
  if (answer?.error) {
    return (
      <p className="form-error" role="alert">
        {answer.error}
      </p>
    )
  }
  return answer?.message ? (
    <p className="form-success" role="status">
      {answer.message}
    </p>
  ) : null
}

/** On the home page after an account was deleted (/?deleted=account). */
export function AccountDeletedNotice() {
  const [params] = useSearchParams()
  if (params.get('deleted') !== 'account') return null
  return (
    <p className="form-success account-deleted" role="status">
      Your account and its data have been deleted. Thank you for using Pawtrait.
    </p>
  )
}
