import { sql } from 'kysely'
import { getDb } from '#platform/db.server.ts'
import { findTaskView, listHistory, selectTasksWithQueue } from '#domain/generation/user-tasks.server.ts'
import { createTestUser } from '#tests/helpers/app.ts'
import { withOwnDataDir } from '#tests/helpers/generation.ts'

withOwnDataDir()
const db = getDb()

async function completedTaskWith(userId: string, params: Record<string, unknown>) {
  const task = await db
    .insertInto('generation_tasks')
    .values({ user_id: userId, kind: 'image', status: 'completed', params, credit_cost: 2, provider: 'local' })
    .returning('id')
    .executeTakeFirstOrThrow()
  return task.id
}

test('a task is named after its saved pet, its pets or its template, and an id that is no uuid names nothing', async () => {
  const { user } = await createTestUser()
  const pet = await db
    .insertInto('pets')
    .values({ user_id: user.id, name: 'Biscuit', species: 'dog' })
    .returning('id')
    .executeTakeFirstOrThrow()
  const template = await db
    .insertInto('templates')
    .values({
      name: 'Royal Court',
      style: 'portrait',
      other_params: {},
      image_key: 'templates/a.png',
      thumbnail_key: 'templates/a-thumb.webp',
      display_key: 'templates/a-display.webp',
      width: 1024,
      height: 1024,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  const cases: Array<[Record<string, unknown>, string | null]> = [
    [{ petId: pet.id, templateId: template.id }, 'Biscuit'],
    [{ pets: [{ name: 'Biscuit' }, { petId: pet.id }, { name: 'Pepper' }] }, 'Biscuit & Pepper'],
    [{ templateId: template.id }, 'Royal Court'],
    // The same ids as the database would never spell them, and text that is no id at all.
    [{ petId: pet.id.toUpperCase(), templateId: `{${template.id}}` }, null],
    [{ petId: 'not-a-pet', templateId: '' }, null],
    [{}, null],
  ]
  for (const [params, subject] of cases) {
    const id = await completedTaskWith(user.id, params)
    expect((await findTaskView(db, user.id, id, 'image'))?.subject, JSON.stringify(params)).toBe(subject)
  }
  const history = await listHistory(db, user.id, 'image', { page: 1, limit: 10 })
  expect(history.items.map((item) => item.subject).reverse()).toEqual(cases.map(([, subject]) => subject))
})

test('a task read finds its pet and template by their primary keys, never by reading every row', async () => {
  const { user } = await createTestUser()
  const query = selectTasksWithQueue(db).where('t.id', '=', crypto.randomUUID()).where('t.user_id', '=', user.id)
  // With sequential scans priced out, a plan still has one only where no index can serve the lookup.
  const plan = await db.connection().execute(async (connection) => {
    await sql`SET enable_seqscan = off`.execute(connection)
    try {
      const { rows } = await sql<{
        'QUERY PLAN': string
      }>`EXPLAIN (GENERIC_PLAN) ${sql.raw(query.compile().sql)}`.execute(connection)
      return rows.map((row) => row['QUERY PLAN']).join('\n')
    } finally {
      await sql`RESET enable_seqscan`.execute(connection)
    }
  })
  expect(plan).toMatch(/Index Scan using pets_pkey on pets/)
  expect(plan).toMatch(/Index Scan using \w+ on templates/)
  expect(plan).not.toMatch(/Seq Scan on (pets|templates)/)
})
