import type { Submission } from '@conform-to/react'
import { json, redirect } from '@remix-run/node'
import { formErrorResponse, type FormActionData } from '#app/utils/form-errors.server.ts'
import { HttpError } from '#app/utils/http.server.ts'

/** A generator page's action answer: the form result, and needPurchase when the credits ran short. */
export type GenerationActionData = FormActionData & { needPurchase?: boolean }

interface GenerationFormOptions<Input, Output> {
  /** Reads and validates the multipart form (limits refused as HttpErrors). */
  read: () => Promise<Submission<Input, string[], Output>>
  /** Pays for and queues the task. */
  submit: (value: Output) => Promise<{ taskId: string }>
  /** The page that shows the task: the answer redirects to `page?task=<id>`. */
  page: string
}

/**
 * A generator page's submission without JavaScript, the same as its API: an invalid form comes back
 * with its errors (400); a lack of credits as a form error marked needPurchase, so the page offers
 * the purchase dialog; success redirects to the page showing the new task.
 */
export async function answerGenerationForm<Input, Output>({
  read,
  submit,
  page,
}: GenerationFormOptions<Input, Output>) {
  let submission
  try {
    submission = await read()
  } catch (error) {
    return formErrorResponse(error)
  }
  if (submission.status !== 'success') {
    return json<GenerationActionData>({ result: submission.reply() }, { status: 400 })
  }
  try {
    const { taskId } = await submit(submission.value)
    return redirect(`${page}?task=${taskId}`)
  } catch (error) {
    if (error instanceof HttpError && error.extra.needPurchase) {
      const result = submission.reply({ formErrors: [error.message] })
      return json<GenerationActionData>({ result, needPurchase: true }, { status: error.status })
    }
    return formErrorResponse(error, submission)
  }
}
