import { sql } from 'kysely'
import { selectUserTask } from '#domain/generation/user-tasks.server.ts'
import { createDb, createPool, getDb, preparedStatement } from '#platform/db.server.ts'
import { compiledOnce } from '#platform/prepared-queries.server.ts'
import { createTestUser } from '#tests/helpers/app.ts'

const newTask = (userId: string) =>
  getDb()
    .insertInto('generation_tasks')
    .values({ user_id: userId, kind: 'image', params: '{}', credit_cost: 2, provider: 'local' })
    .returning('id')
    .executeTakeFirstOrThrow()

test('a task read runs as a prepared statement, and a column added by a migration meanwhile does not break it', async () => {
  const { user } = await createTestUser()
  const { id } = await newTask(user.id)
  // One connection, so that every read below runs on the one that prepared the statement.
  const db = createDb(createPool(process.env.DATABASE_URL!, { max: 1 }))
  try {
    expect(await selectUserTask(db, user.id, id, 'image')).toMatchObject({ id, status: 'queued' })
    const { rows } = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(db)
    expect(rows.some(({ statement }) => statement.includes('from "generation_tasks" as "t"'))).toBe(true)

    await sql`ALTER TABLE generation_tasks ADD COLUMN added_by_a_migration integer`.execute(getDb())
    try {
      const read = await selectUserTask(db, user.id, id, 'image')
      expect(read).toMatchObject({ id })
      expect(read).not.toHaveProperty('added_by_a_migration')
      // Another user's task, or another kind: not found, through the same statement.
      const { user: other } = await createTestUser()
      expect(await selectUserTask(db, other.id, id, 'image')).toBeUndefined()
      expect(await selectUserTask(db, user.id, id, 'video')).toBeUndefined()
    } finally {
      await sql`ALTER TABLE generation_tasks DROP COLUMN added_by_a_migration`.execute(getDb())
    }
  } finally {
    await db.destroy()
  }
})

test('a statement that would select * or miss a value is refused before it runs', async () => {
  expect(() => preparedStatement('select * from "users"')).toThrow(/name its columns/)
  expect(() => preparedStatement('select "t".* from "generation_tasks" as "t"')).toThrow(/name its columns/)
  const ignoresItsValue = compiledOnce((db, _userId: string) => db.selectFrom('users').select('id'))
  await expect(ignoresItsValue(getDb(), 'someone')).rejects.toThrow(/every value must reach the query/)
})
