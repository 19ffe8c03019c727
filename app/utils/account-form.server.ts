import type { Submission } from '@conform-to/react'
import { json } from '@remix-run/node'
import { VerificationCodeError } from '#app/models/verification-code.server.ts'
import type { FormActionData } from './form-errors.server.ts'
import { HttpError } from './http.server.ts'

/** What the account pages' actions answer: conform's result, a success message, and where the flow is. */
export type AccountActionData = FormActionData & {
  /** The server's time when an email code was sent, for the resend countdown. */
  codeSentAt?: number
  /** /forgot-password: whether the code and new-password fields are shown. */
  step?: 'email' | 'reset'
  done?: boolean
}

/**
 * Answers an HttpError thrown while handling an account form with its status: a refused
 * verification code beside the code field, anything else above the form. Other errors are rethrown.
 */
export function accountFormError(
  error: unknown,
  submission: Submission<unknown>,
  extra: Partial<AccountActionData> = {},
) {
  if (!(error instanceof HttpError)) throw error
  const result =
    error instanceof VerificationCodeError
      ? submission.reply({ fieldErrors: { verificationCode: [error.message] } })
      : submission.reply({ formErrors: [error.message] })
  return json<AccountActionData>({ ...extra, result }, { status: error.status })
}
