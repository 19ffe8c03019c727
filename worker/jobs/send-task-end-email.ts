import type { Task } from 'graphile-worker'
import { z } from 'zod'
import { queueTaskEndEmail } from '#domain/generation/task-end-email.server.ts'
import { getDb } from '#platform/db.server.ts'

const payloadSchema = z.object({ taskId: z.string().uuid() })

/** Long work ended (queued by the generation_tasks trigger): the user's email, once, on the email lane. */
export const sendTaskEndEmail: Task = async (payload, helpers) => {
  const { taskId } = payloadSchema.parse(payload)
  const queued = await queueTaskEndEmail(getDb(), taskId)
  helpers.logger.info(`task ${taskId}: end email ${queued ? 'queued' : 'not wanted or already queued'}`)
}
