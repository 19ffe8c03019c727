import sharp from 'sharp'
import type { TaskStatus } from '#platform/db-schema.ts'
import { getDb } from '#platform/db.server.ts'
import { getStorage, mediaKey } from '#platform/storage.server.ts'

/**
 * A completed image task of `userId` (a guided run, 30 days left) whose one version, index 0, is
 * `png`, stored under `tasks/results/`; made directly in the database, without a generation.
 * `status` makes it another state with the same version (a task not finished, for refusals).
 */
export async function finishedTaskWithVersion(userId: string, png: Buffer, status: TaskStatus = 'completed') {
  const db = getDb()
  const { width = 0, height = 0 } = await sharp(png).metadata()
  const key = mediaKey('tasks/results', png, 'png')
  await getStorage().put(key, png, 'image/png')
  const task = await db
    .insertInto('generation_tasks')
    .values({
      user_id: userId,
      kind: 'image',
      status,
      params: { mode: 'guide', style: 'general', guided: {}, prompt: '', templatePrompt: '', templateId: null },
      result_key: key,
      credit_cost: 2,
      provider: 'local',
      finished_at: new Date(),
      expires_at: new Date(Date.now() + 30 * 86400_000),
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  await db.insertInto('task_versions').values({ task_id: task.id, version_index: 0, key, width, height }).execute()
  return { taskId: task.id, key }
}
