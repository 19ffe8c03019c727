import { json, redirect } from '@remix-run/node'
import { ZodError } from 'zod'
import { changeVersionTitle, versionTitleChangeSchema } from '#domain/generation/version-title.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { getDb } from '#platform/db.server.ts'

/** The action's answer to a refused title form. */
export interface TitleActionData {
  title: { taskId: string; message: string }
}

/** Whether a page's url-encoded post is the title form. */
export const isTitleForm = (form: FormData) => form.get('intent') === 'title'

/**
 * The title form of a finished portrait (the page's equivalent of PUT …/title): sets, changes or
 * removes the name, then back to `back(taskId)`; a refusal comes back beside the form.
 */
export async function answerTitleForm(form: FormData, userId: string, back: (taskId: string) => string) {
  const taskId = String(form.get('task') ?? '')
  try {
    const change = versionTitleChangeSchema.parse({
      index: form.get('index') ?? undefined,
      title: form.get('title') ?? '',
      style: form.get('style') ?? undefined,
      font: form.get('font') ?? undefined,
    })
    await changeVersionTitle(getDb(), userId, taskId, change)
    return redirect(back(taskId))
  } catch (error) {
    const refusal =
      error instanceof HttpError
        ? { status: error.status, message: error.message }
        : error instanceof ZodError
          ? { status: 400, message: error.issues[0]?.message ?? 'Invalid name' }
          : null
    if (!refusal) throw error
    return json<TitleActionData>({ title: { taskId, message: refusal.message } }, { status: refusal.status })
  }
}
