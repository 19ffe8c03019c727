import { getDb } from '#platform/db.server.ts'
import { enqueueJob } from '#platform/jobs.server.ts'
import { createUser } from '#domain/accounts/user.server.ts'
import { hashToken } from '#domain/sessions/session.server.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'

test('a job enqueued by the web side is run by the real worker process, which stops cleanly on SIGTERM', async () => {
  const db = getDb()
  const user = await createUser(db, { email: 'worker@example.com', name: 'Worker', password: 'secret1' })
  await db
    .insertInto('sessions')
    .values([
      { token_hash: hashToken('expired'), user_id: user.id, expires_at: new Date(Date.now() - 1000) },
      { token_hash: hashToken('live'), user_id: user.id, expires_at: new Date(Date.now() + 60_000) },
    ])
    .execute()

  const worker = startWorker()
  try {
    await worker.ready()
    await enqueueJob(db, 'cleanup_sessions', {})
    await waitFor(async () => {
      const rows = await db.selectFrom('sessions').select('token_hash').execute()
      return rows.length === 1 ? rows : null
    })
    const left = await db.selectFrom('sessions').select('token_hash').execute()
    expect(left).toEqual([{ token_hash: hashToken('live') }])
  } finally {
    expect(await worker.stop()).toBe(0)
  }
  expect(worker.output.join('')).toContain('[worker] stopped')
})
