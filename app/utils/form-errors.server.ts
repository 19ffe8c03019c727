import type { Submission, SubmissionResult } from '@conform-to/react'
import { json } from '@remix-run/node'
import { HttpError } from './http.server.ts'

/** What a conform page action answers: the submission result, and a success message or the form it belongs to. */
export type FormActionData = { result: SubmissionResult<string[]>; message?: string; form?: string }

/**
 * Answers an HttpError thrown while handling a form (an upload refused, a duplicate, a conflict) as a
 * form-level error with its status, so the page shows the message with or without JavaScript.
 * Anything else is rethrown. Without a submission (the form could not be read) the values are lost.
 */
export function formErrorResponse(error: unknown, submission?: Submission<unknown>, form?: string) {
  if (!(error instanceof HttpError)) throw error
  const result: SubmissionResult<string[]> = submission
    ? submission.reply({ formErrors: [error.message] })
    : { status: 'error', error: { '': [error.message] } }
  return json<FormActionData>({ result, form }, { status: error.status })
}

/** The first message of a failed submission, for API answers. */
export function firstSubmissionError(error: Record<string, string[] | null> | null | undefined) {
  return Object.values(error ?? {}).flatMap((messages) => messages ?? [])[0] ?? 'Invalid request'
}
