import { sql } from 'kysely'
import type { DB } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { queueEmail, type EmailMessage } from '#platform/email.server.ts'
import { publicOrigin } from '#platform/public-url.server.ts'
import { unsubscribeToken } from '#domain/accounts/task-email-preference.server.ts'

/**
 * The email at the end of long work: a video's end, or an image's that took more than two minutes
 * (the generation_tasks trigger of migration 0023 picks those and queues send_task_end_email).
 * Marking the task and queueing the message commit together, so a retried job never queues a
 * second one; a user who switched the emails off gets none.
 */
export async function queueTaskEndEmail(db: DB, taskId: string) {
  return db.transaction().execute(async (tx) => {
    const task = await tx
      .updateTable('generation_tasks as t')
      .from('users as u')
      .set({ end_email_queued_at: sql`now()` })
      .whereRef('u.id', '=', 't.user_id')
      .where('t.id', '=', taskId)
      .where('t.end_email_queued_at', 'is', null)
      .where('t.status', 'in', ['completed', 'failed'])
      .where('u.task_emails', '=', true)
      .returning(['t.id', 't.kind', 't.status', 't.error', 't.credit_cost', 't.user_id', 'u.email', 'u.name'])
      .executeTakeFirst()
    if (!task) return false
    await queueEmail(tx, taskEndMessage(task))
    return true
  })
}

interface EndedTask {
  id: string
  kind: 'image' | 'video'
  status: 'queued' | 'processing' | 'completed' | 'failed'
  error: string | null
  credit_cost: number
  user_id: string
  email: string
  name: string
}

function taskEndMessage(task: EndedTask): EmailMessage {
  const env = getEnv()
  const origin = publicOrigin(env)
  const what = task.kind === 'video' ? 'video' : 'pet portrait'
  const page = task.kind === 'video' ? '/generate-video' : '/generate'
  const link = `${origin}${page}?task=${encodeURIComponent(task.id)}`
  const unsubscribe = `${origin}/unsubscribe?token=${encodeURIComponent(unsubscribeToken(task.user_id))}`
  const completed = task.status === 'completed'
  const subject = completed ? `Your ${what} is ready` : `Your ${what} could not be made`
  const body = completed
    ? [`Your ${what} is ready. See it and download it here:`, link]
    : [
        `Sorry, your ${what} could not be made: ${task.error ?? 'the generation failed.'}`,
        `Your ${task.credit_cost} credits have been refunded to your account.`,
        `Try again: ${origin}${page}`,
      ]
  const footer = [
    'You get this email because you asked for work that takes a while.',
    `To stop these emails: ${unsubscribe}`,
  ]
  return {
    to: task.email,
    subject,
    text: [`Hello ${task.name},`, '', ...body, '', '--', ...footer].join('\n'),
    headers: {
      'List-Unsubscribe': `<${unsubscribe}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  }
}
