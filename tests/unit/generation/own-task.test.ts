import type { DB } from '#platform/db.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { isTaskId, requireOwnTask } from '#domain/generation/own-task.server.ts'

const TASK_ID = '3f2b8c1e-6d4a-4f7b-9c2e-1a5d7e9b0c42'

test.each([
  [TASK_ID, true],
  [TASK_ID.toUpperCase(), true],
  ['', false],
  ['nope', false],
  ['42', false],
  [TASK_ID.replaceAll('-', ''), false],
  [`{${TASK_ID}}`, false],
  [`${TASK_ID} `, false],
  [`${TASK_ID}/../x`, false],
  [undefined, false],
  [42, false],
])('isTaskId(%j) is %s', (value, expected) => {
  expect(isTaskId(value)).toBe(expected)
})

/** A database that fails the test if asked anything. */
const untouchable = new Proxy({} as DB, {
  get() {
    throw new Error('a malformed id reached the database')
  },
})

test.each(['nope', TASK_ID.replaceAll('-', ''), `${TASK_ID}'--`])(
  'a malformed id (%j) is the 404 of a task not found, without a query',
  async (taskId) => {
    const refusal = await requireOwnTask(untouchable, 'some-user', taskId).catch((error: unknown) => error)
    expect(refusal).toBeInstanceOf(HttpError)
    expect(refusal).toMatchObject({ status: 404, message: 'Task not found' })
    const video = await requireOwnTask(untouchable, 'some-user', taskId, {
      kind: 'video',
      message: 'Video not found',
    }).catch((error: unknown) => error)
    expect(video).toMatchObject({ status: 404, message: 'Video not found' })
  },
)
