import { createTestUser } from '#tests/helpers/app.ts'
import { creditsOf, petPhoto, photoFile, submitGeneration, tasksOf, withOwnDataDir } from '#tests/helpers/generation.ts'
import { submitVideo } from '#tests/helpers/video.ts'

const media = withOwnDataDir()

test('a user with MAX_ACTIVE_TASKS_PER_USER (5) tasks queued gets 429 for one more, charged nothing', async () => {
  const { user, token } = await createTestUser({ role: 'superadmin', credits: 200 })
  for (let i = 0; i < 4; i++) {
    expect((await submitGeneration(token, [photoFile(await petPhoto())])).status).toBe(200)
  }
  // Images and videos count together.
  expect((await submitVideo(token, { mode: 'text', prompt: 'A dog dancing' })).status).toBe(200)
  const credits = await creditsOf(user.id)
  const files = media.taskFiles().length

  const refused = await submitGeneration(token, [photoFile(await petPhoto())])
  expect(refused.status).toBe(429)
  expect(refused.body.message).toBe(
    'You already have 5 generations in progress. Please wait until one of them finishes.',
  )
  expect((await submitVideo(token, { mode: 'text', prompt: 'A cat' })).status).toBe(429)
  expect(await creditsOf(user.id)).toBe(credits)
  expect(await tasksOf(user.id)).toHaveLength(5)
  expect(media.taskFiles()).toHaveLength(files)

  // Another user is not held back.
  const other = await createTestUser({ credits: 10 })
  expect((await submitGeneration(other.token, [photoFile(await petPhoto())])).status).toBe(200)
})

test('12 parallel submissions of one user: exactly 5 are accepted, the rest answer 429 and cost nothing', async () => {
  const { user, token } = await createTestUser({ credits: 200 })
  const photo = await petPhoto('#663399')
  const answers = await Promise.all(Array.from({ length: 12 }, () => submitGeneration(token, [photoFile(photo)])))
  const statuses = answers.map((answer) => answer.status)
  expect(statuses.filter((status) => status === 200)).toHaveLength(5)
  expect(statuses.filter((status) => status === 429)).toHaveLength(7)
  const tasks = await tasksOf(user.id)
  expect(tasks).toHaveLength(5)
  expect(await creditsOf(user.id)).toBe(200 - tasks.reduce((sum, task) => sum + task.credit_cost, 0))
})
