import { sql } from 'kysely'
import { action as unsubscribe } from '#app/routes/unsubscribe.tsx'
import { unsubscribeToken } from '#domain/accounts/task-email-preference.server.ts'
import { getDb } from '#platform/db.server.ts'
import { startSmtpCatcher, type SmtpCatcher } from '#tests/fakes/smtp.ts'
import { startFakeVeo, type FakeVeo } from '#tests/fakes/veo.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { petPhoto, photoFile, submitGeneration, taskRow, withOwnDataDir } from '#tests/helpers/generation.ts'
import { submitVideo } from '#tests/helpers/video.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'

withOwnDataDir()
process.env.PUBLIC_URL = 'https://pawtrait.example'
const db = getDb()

let smtp: SmtpCatcher
let veo: FakeVeo
let worker: ReturnType<typeof startWorker>

beforeAll(async () => {
  ;[smtp, veo] = await Promise.all([startSmtpCatcher(), startFakeVeo()])
  worker = startWorker({
    SMTP_URL: smtp.url,
    VIDEO_PROVIDER: 'veo',
    GEMINI_API_KEY: veo.apiKey,
    GEMINI_BASE_URL: veo.baseUrl,
    VEO_POLL_INTERVAL_MS: '100',
    IMAGE_PROVIDER: 'instant',
    INSTANT_PROVIDER_DELAY_MS: '1500',
  })
  await worker.ready()
})
afterAll(async () => {
  await worker?.stop()
  await Promise.all([smtp?.close(), veo?.close()])
})
beforeEach(() => veo.reset())

const mailsTo = (email: string) => smtp.messages.filter((mail) => mail.to && JSON.stringify(mail.to).includes(email))
const endEmailJobs = async (taskId: string) =>
  (
    await sql<{ count: number }>`
      SELECT count(*)::int AS count FROM graphile_worker.jobs WHERE key = ${`task-end-email:${taskId}`}
    `.execute(db)
  ).rows[0].count

async function submitTextVideo(token: string) {
  const { status, body } = await submitVideo(token, { mode: 'text', prompt: 'A corgi surfing', quality: 'stable' })
  expect(status).toBe(200)
  return body.taskId as string
}

async function finished(taskId: string) {
  return waitFor(
    async () => {
      const row = await taskRow(taskId)
      return row.status === 'completed' || row.status === 'failed' ? row : null
    },
    { timeout: 30_000 },
  )
}

test('a video whose job was retried: one email with its link and the one-click unsubscribe headers, even when the email job runs again', async () => {
  const { user, token } = await createTestUser({ role: 'superadmin', credits: 50 })
  veo.failingPolls = 1 // the first attempt fails on a 503; graphile-worker runs the job again
  const taskId = await submitTextVideo(token)

  const mail = await smtp.waitForMessage(user.email, 'Your video is ready')
  expect(worker.output.join('')).toContain(`task ${taskId} attempt 1/4`) // a failed attempt, retried
  expect(mail.text).toContain(`https://pawtrait.example/generate-video?task=${taskId}`)
  const unsubscribeUrl = `https://pawtrait.example/unsubscribe?token=${encodeURIComponent(unsubscribeToken(user.id))}`
  expect(mail.text).toContain(unsubscribeUrl)
  const header = (name: string) => mail.headerLines.find((line) => line.key === name)?.line.replace(/\r?\n/g, '')
  expect(header('list-unsubscribe-post')).toMatch(/^List-Unsubscribe-Post:\s+List-Unsubscribe=One-Click$/)
  expect(header('list-unsubscribe')).toMatch(/^List-Unsubscribe:\s+<(.+)>$/)
  expect(/<(.+)>/.exec(header('list-unsubscribe')!)?.[1]).toBe(unsubscribeUrl)

  // graphile-worker retrying the end-of-work job (or a duplicate of it) sends nothing more.
  await sql`
    SELECT graphile_worker.add_job('send_task_end_email', json_build_object('taskId', ${taskId}::text),
      job_key => ${`task-end-email:${taskId}`})
  `.execute(db)
  await waitFor(async () => (await endEmailJobs(taskId)) === 0)
  await new Promise((resolve) => setTimeout(resolve, 500)) // a second send_email, if any, would land now
  expect(mailsTo(user.email)).toHaveLength(1)
})

test('a failed video: the email says so and states the refund', async () => {
  const { user, token } = await createTestUser({ role: 'superadmin', credits: 50 })
  veo.outcome = { type: 'rai-filtered', reasons: ['The prompt could not be used.'] }
  const taskId = await submitTextVideo(token)
  const mail = await smtp.waitForMessage(user.email, 'Your video could not be made')
  const row = await taskRow(taskId)
  expect(row.status).toBe('failed')
  expect(mail.text).toContain(`Your ${row.credit_cost} credits have been refunded`)
})

test('images: an email only when one took more than two minutes from submission', async () => {
  const { user, token } = await createTestUser({ credits: 50 })
  const quick = await submitGeneration(token, [photoFile(await petPhoto())])
  const slow = await submitGeneration(token, [photoFile(await petPhoto('#305070'))])
  // As if it had waited behind the provider's rate limit since three minutes ago.
  await db
    .updateTable('generation_tasks')
    .set({ created_at: sql`created_at - interval '3 minutes'` })
    .where('id', '=', slow.body.taskId)
    .execute()
  await Promise.all([finished(quick.body.taskId), finished(slow.body.taskId)])
  const mail = await smtp.waitForMessage(user.email, 'Your pet portrait is ready')
  expect(mail.text).toContain(`/generate?task=${slow.body.taskId}`)
  expect(await endEmailJobs(quick.body.taskId)).toBe(0)
  expect((await taskRow(quick.body.taskId)).end_email_queued_at).toBeNull()
  expect(mailsTo(user.email)).toHaveLength(1)
})

test('one-click unsubscribe from a client without cookies; afterwards no email; a forged token changes nothing', async () => {
  const { user, token } = await createTestUser({ role: 'superadmin', credits: 50 })
  const { user: bystander } = await createTestUser()
  const oneClick = (value: string) =>
    callRoute(
      unsubscribe,
      makeRequest(`/unsubscribe?token=${encodeURIComponent(value)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      }),
    )
  const forged = `${bystander.id}.${unsubscribeToken(user.id).split('.')[1]}`
  expect((await oneClick(forged)).status).toBe(400)
  expect((await oneClick('nonsense')).status).toBe(400)
  const answer = await oneClick(unsubscribeToken(user.id))
  expect(answer.status).toBe(200)
  const emailsOn = async (id: string) =>
    (await db.selectFrom('users').select('task_emails').where('id', '=', id).executeTakeFirstOrThrow()).task_emails
  expect(await emailsOn(user.id)).toBe(false)
  expect(await emailsOn(bystander.id)).toBe(true)

  const taskId = await submitTextVideo(token)
  await finished(taskId)
  await waitFor(async () => (await endEmailJobs(taskId)) === 0)
  await new Promise((resolve) => setTimeout(resolve, 500))
  expect(mailsTo(user.email)).toHaveLength(0)
  expect((await taskRow(taskId)).end_email_queued_at).toBeNull()
})
