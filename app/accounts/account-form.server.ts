import type { FormActionData } from '#app/utils/form-errors.server.ts'

/** What the account pages' actions answer: conform's result, a success message, and where the flow is. */
export type AccountActionData = FormActionData & {
  /** The server's time when an email code was sent, for the resend countdown. */
  codeSentAt?: number
  /** /forgot-password: whether the code and new-password fields are shown. */
  step?: 'email' | 'reset'
  done?: boolean
}
