import { randomUUID } from 'node:crypto'
import type { TaskKind } from '#platform/db-schema.ts'
import { getDb } from '#platform/db.server.ts'
import { requireOwnTask } from '#domain/generation/own-task.server.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { withOwnDataDir } from '#tests/helpers/generation.ts'

withOwnDataDir()
const db = getDb()

async function taskOf(userId: string, kind: TaskKind) {
  const task = await db
    .insertInto('generation_tasks')
    .values({ user_id: userId, kind, params: {}, credit_cost: 2, provider: 'local' })
    .returning('id')
    .executeTakeFirstOrThrow()
  return task.id
}

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: { status: number; message: string }) => ({ status: error.status, message: error.message }),
  )

test('a malformed id, a missing task, another user’s task and a task of another kind are one and the same 404', async () => {
  const { user: owner } = await createTestUser()
  const { user: other } = await createTestUser()
  const image = await taskOf(owner.id, 'image')
  const video = await taskOf(owner.id, 'video')

  expect(await requireOwnTask(db, owner.id, image)).toMatchObject({ id: image, user_id: owner.id, kind: 'image' })
  expect(await requireOwnTask(db, owner.id, video, { kind: null })).toMatchObject({ id: video, kind: 'video' })

  const notFound = { status: 404, message: 'Task not found' }
  for (const [userId, taskId] of [
    [owner.id, 'not-a-task'],
    [owner.id, image.replaceAll('-', '')],
    [owner.id, randomUUID()],
    [other.id, image],
    [owner.id, video],
  ]) {
    expect(await refusalOf(requireOwnTask(db, userId, taskId))).toEqual(notFound)
  }
  expect(await refusalOf(requireOwnTask(db, other.id, video, { kind: 'video', message: 'Video not found' }))).toEqual({
    status: 404,
    message: 'Video not found',
  })
})
