import { json, redirect } from '@remix-run/node'
import { z } from 'zod'
import { likenessFixSchema } from '#domain/generation/likeness-fix.ts'
import { fixTask, rerollTask } from '#domain/generation/task-family.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'

/**
 * The result panel's Re-roll and "Doesn't look like my pet?" forms: plain url-encoded posts to the
 * page's own action (the generator and /history), the same work as the API without JavaScript.
 * Success opens the new task on /generate; a refusal comes back beside the form it belongs to.
 */

const familyFormSchema = z.discriminatedUnion('intent', [
  z.object({ intent: z.literal('reroll'), taskId: z.string() }),
  likenessFixSchema.extend({ intent: z.literal('fix'), taskId: z.string() }),
])

type Intent = z.infer<typeof familyFormSchema>['intent']

/** The action's answer to a refused re-roll or fix. */
export interface TaskFamilyActionData {
  taskFamily: { taskId: string; intent: Intent; message: string; needPurchase: boolean }
}

const intents: readonly string[] = ['reroll', 'fix'] satisfies Intent[]

/** Whether a posted form is a re-roll or a fix (its `intent`). */
export const isTaskFamilyForm = (form: FormData) => intents.includes(String(form.get('intent')))

export async function answerTaskFamilyForm(request: Request, form: FormData, userId: string) {
  const requester = { userId, clientAddress: getClientAddress(request) }
  const taskId = String(form.get('taskId') ?? '')
  const intent = form.get('intent') === 'fix' ? 'fix' : 'reroll'
  const refuse = (status: number, message: string, needPurchase = false) =>
    json<TaskFamilyActionData>({ taskFamily: { taskId, intent, message, needPurchase } }, { status })
  if (!isTaskFamilyForm(form)) return refuse(400, 'Unknown form: expected a re-roll or a likeness fix')
  const parsed = familyFormSchema.safeParse({
    intent: form.get('intent'),
    taskId,
    reasons: form.getAll('reasons'),
    note: form.get('note') ?? '',
  })
  if (!parsed.success) return refuse(400, parsed.error.issues[0]?.message ?? 'Invalid request')
  const value = parsed.data
  try {
    const { taskId: newTaskId } =
      value.intent === 'reroll'
        ? await rerollTask(getDb(), requester, value.taskId)
        : await fixTask(getDb(), requester, value.taskId, { reasons: value.reasons, note: value.note })
    return redirect(`/generate?task=${newTaskId}`)
  } catch (error) {
    if (!(error instanceof HttpError)) throw error
    return refuse(error.status, error.message, Boolean(error.extra.needPurchase))
  }
}
