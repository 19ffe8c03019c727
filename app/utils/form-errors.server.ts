import type { Submission, SubmissionResult } from '@conform-to/react'
import { json } from '@remix-run/node'
import { HttpError } from '#domain/http-error.server.ts'

/** What a conform page action answers: the submission result, and a success message or the form it belongs to. */
export type FormActionData = { result: SubmissionResult<string[]>; message?: string; form?: string }

/**
 * Answers an HttpError thrown while handling a form (an upload refused, a duplicate, a refused code)
 * with its status, so the page shows the message with or without JavaScript: beside its field when
 * the error names one, else above the form. `extra` joins the answer (which form, which step).
 * Anything else is rethrown. Without a submission (the form could not be read) the values are lost.
 */
export function formErrorResponse<Data extends FormActionData = FormActionData>(
  error: unknown,
  submission?: Submission<unknown>,
  extra: Partial<Data> = {},
) {
  if (!(error instanceof HttpError)) throw error
  const result: SubmissionResult<string[]> = !submission
    ? { status: 'error', error: { '': [error.message] } }
    : error.field
      ? submission.reply({ fieldErrors: { [error.field]: [error.message] } })
      : submission.reply({ formErrors: [error.message] })
  return json<Data>({ ...extra, result } as Data, { status: error.status, headers: error.headers })
}

/** A failed submission as an API refusal (400): its first message, and the field it is about. */
export function submissionRefusal(error: Record<string, string[] | null> | null | undefined) {
  const [field, messages] = Object.entries(error ?? {}).find(([, messages]) => messages?.length) ?? []
  return new HttpError(400, messages?.[0] ?? 'Invalid request', field ? { field } : {})
}
