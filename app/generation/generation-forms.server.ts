import type { Submission } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json, redirect } from '@remix-run/node'
import { imageGenerationSchema, MAX_FILES } from '#domain/generation/image-generation-form.ts'
import { PROMPT_MAX_LENGTH } from '#domain/generation/prompt.ts'
import { videoGenerationSchema } from '#domain/generation/video-generation-form.ts'
import { readMultipartForm } from '#app/utils/multipart.server.ts'
import { formErrorResponse, type FormActionData } from '#app/utils/form-errors.server.ts'
import { asksInPageAnswer } from '#app/utils/in-page-answer.ts'
import { badRequest, HttpError } from '#domain/http-error.server.ts'
import { chooseFavourite, favouriteSchema } from '#domain/generation/task-versions.server.ts'
import { z, ZodError } from 'zod'
import { findTaskView } from '#domain/generation/user-tasks.server.ts'
import { getDb } from '#platform/db.server.ts'
import type { TaskKind } from '#platform/db-schema.ts'

/**
 * A generator page's action answer: the form result, and needPurchase when the credits ran short;
 * to its page's script (in-page-answer.ts), a success is the new task's id.
 */
export type GenerationActionData = Partial<FormActionData> & { needPurchase?: boolean; taskId?: string }

interface GenerationFormOptions<Input, Output> {
  /** Reads and validates the multipart form (limits refused as HttpErrors). */
  read: () => Promise<Submission<Input, string[], Output>>
  /** Pays for and queues the task. */
  submit: (value: Output) => Promise<{ taskId: string }>
  /** The page that shows the task: the answer redirects to `page?task=<id>`. */
  page: string
}

/** The user's task a generator page shows after a submission without JavaScript (`?task=<id>`). */
export async function findShownTask(request: Request, userId: string | undefined, kind: TaskKind) {
  const taskId = new URL(request.url).searchParams.get('task')
  return userId && taskId ? findTaskView(getDb(), userId, taskId, kind) : null
}

/**
 * A generator page's submission, the same as its API: an invalid form comes back with its errors
 * (400); a lack of credits as a form error marked needPurchase, so the page offers the purchase
 * dialog; any other refusal beside the field it names, else above the form. Success redirects to
 * the page showing the new task, or answers the task's id to the page's script, which shows it in place.
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
    if (asksInPageAnswer(submission.payload)) return json<GenerationActionData>({ taskId })
    return redirect(`${page}?task=${taskId}`)
  } catch (error) {
    if (error instanceof HttpError && error.extra.needPurchase) {
      const result = submission.reply({ formErrors: [error.message] })
      return json<GenerationActionData>({ result, needPurchase: true }, { status: error.status })
    }
    return formErrorResponse(error, submission)
  }
}

/** A page's plain "Make favourite" form (url-encoded, where generation forms are multipart). */
export const isFavouriteForm = (form: FormData) => form.get('intent') === 'favourite'

const favouriteFormSchema = favouriteSchema.extend({ task: z.string({ required_error: 'Which image?' }) })

/** What a page's script hears of a favourite it chose in place. */
export type FavouriteActionData = Partial<FormActionData> & { favouriteIndex?: number }

/**
 * A page's favourite form (the page's equivalent of PUT …/favourite): picks the version, then back
 * to `back(taskId)`, or to the page's script the chosen index; a refusal comes back as the form's error.
 */
export async function answerFavouriteForm(form: FormData, userId: string, back: (taskId: string) => string) {
  try {
    const { task, index } = favouriteFormSchema.parse(Object.fromEntries(form))
    await chooseFavourite(getDb(), userId, task, index)
    if (asksInPageAnswer(form)) return json<FavouriteActionData>({ favouriteIndex: index })
    return redirect(back(task))
  } catch (error) {
    if (error instanceof ZodError) return formErrorResponse(badRequest(error.issues[0]?.message ?? 'Invalid request'))
    return formErrorResponse(error)
  }
}

/**
 * Reads the multipart form within its limits (10 MB a file, a photo a pet and five references, short text fields; 413/400
 * otherwise) and validates it. The submission is answered as is so a page can reply with it.
 */
export async function readImageGenerationForm(request: Request) {
  const formData = await readMultipartForm(request, {
    maxFiles: MAX_FILES,
    // Room for the longest prompt in any script (UTF-8 takes up to 4 bytes a character).
    maxTextFieldBytes: PROMPT_MAX_LENGTH * 4,
  })
  return parseWithZod(formData, { schema: imageGenerationSchema })
}

/** Reads the multipart form within its limits (one image of 10 MB, a short prompt; 413/400 otherwise) and validates it. */
export async function readVideoGenerationForm(request: Request) {
  const formData = await readMultipartForm(request, { maxFiles: 1, maxTextFieldBytes: PROMPT_MAX_LENGTH * 4 })
  return parseWithZod(formData, { schema: videoGenerationSchema })
}
