import { json, redirect } from '@remix-run/node'
import { z } from 'zod'
import { likenessFixSchema } from '#domain/generation/likeness-fix.ts'
import { fixTask, rerollTask } from '#domain/generation/task-family.server.ts'
import { upscaleRequestSchema } from '#domain/generation/upscale-params.ts'
import { upscaleTask } from '#domain/generation/upscale-request.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'

/**
 * The result panel's Re-roll, "Doesn't look like my pet?" and "Make it bigger" forms: plain url-encoded posts to the
 * page's own action (the generator and /history), the same work as the API without JavaScript.
 * Success opens the new task on /generate; a refusal comes back beside the form it belongs to.
 */

const familyFormSchema = z.discriminatedUnion('intent', [
  z.object({ intent: z.literal('reroll'), taskId: z.string() }),
  likenessFixSchema.extend({ intent: z.literal('fix'), taskId: z.string() }),
  upscaleRequestSchema.extend({ intent: z.literal('upscale'), taskId: z.string() }),
])

type Intent = z.infer<typeof familyFormSchema>['intent']

/** The action's answer to a refused re-roll or fix. */
export interface TaskFamilyActionData {
  taskFamily: { taskId: string; intent: Intent; message: string; needPurchase: boolean }
}

const intents: readonly Intent[] = ['reroll', 'fix', 'upscale']

const intentOf = (form: FormData) => intents.find((intent) => intent === form.get('intent'))

/** Whether a posted form is a re-roll, a fix or "Make it bigger" (its `intent`). */
export const isTaskFamilyForm = (form: FormData) => intentOf(form) !== undefined

export async function answerTaskFamilyForm(request: Request, form: FormData, userId: string) {
  const requester = { userId, clientAddress: getClientAddress(request) }
  const taskId = String(form.get('taskId') ?? '')
  const intent = intentOf(form) ?? 'reroll'
  const refuse = (status: number, message: string, needPurchase = false) =>
    json<TaskFamilyActionData>({ taskFamily: { taskId, intent, message, needPurchase } }, { status })
  if (!isTaskFamilyForm(form)) return refuse(400, 'Unknown form: expected a re-roll, a likeness fix or an upscale')
  const parsed = familyFormSchema.safeParse({
    intent: form.get('intent'),
    taskId,
    reasons: form.getAll('reasons'),
    note: form.get('note') ?? '',
    pet: form.get('pet') ?? undefined,
    index: form.get('index') ?? undefined,
    scale: form.get('scale') ?? undefined,
  })
  if (!parsed.success) return refuse(400, parsed.error.issues[0]?.message ?? 'Invalid request')
  const value = parsed.data
  try {
    const { taskId: newTaskId } =
      value.intent === 'reroll'
        ? await rerollTask(getDb(), requester, value.taskId)
        : value.intent === 'upscale'
          ? await upscaleTask(getDb(), userId, value.taskId, value)
          : await fixTask(getDb(), requester, value.taskId, {
              reasons: value.reasons,
              note: value.note,
              pet: value.pet,
            })
    return redirect(`/generate?task=${newTaskId}`)
  } catch (error) {
    if (!(error instanceof HttpError)) throw error
    return refuse(error.status, error.message, Boolean(error.extra.needPurchase))
  }
}
