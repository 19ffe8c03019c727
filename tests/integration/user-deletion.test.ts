import fs from 'node:fs'
import path from 'node:path'
import { getDb } from '#platform/db.server.ts'
import { getStorage, mediaKey } from '#platform/storage.server.ts'
import { action as deleteAction } from '#app/routes/api.userManagement.users.$id.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { petPhoto, photoFile, submitGeneration, withOwnDataDir } from '#tests/helpers/generation.ts'

const media = withOwnDataDir()

test('deleting a user removes their uploads, results and avatar from storage, and nobody else’s', async () => {
  const { user, token } = await createTestUser({ credits: 10 })
  const other = await createTestUser({ credits: 10 })
  expect((await submitGeneration(token, [photoFile(await petPhoto('#aa3311'))])).status).toBe(200)
  expect((await submitGeneration(other.token, [photoFile(await petPhoto('#aa3311'))])).status).toBe(200)
  const avatar = mediaKey(`avatars/${user.id}`, await petPhoto('#123456'), 'jpg')
  await getStorage().put(avatar, await petPhoto('#123456'), 'image/jpeg')
  await getDb().updateTable('users').set({ profile_picture: avatar }).where('id', '=', user.id).execute()
  const [ownTask] = await getDb().selectFrom('generation_tasks').select('id').where('user_id', '=', user.id).execute()

  const { token: superadminToken } = await createTestUser({ role: 'superadmin' })
  const response = await callRoute(
    deleteAction,
    makeRequest(`/api/userManagement/users/${user.id}`, { method: 'DELETE', token: superadminToken }),
    { id: user.id },
  )
  expect(response.status).toBe(200)

  const files = media.taskFiles()
  expect(files.some((key) => key.startsWith(`tasks/${ownTask.id}/`))).toBe(false)
  expect(files.some((key) => !key.startsWith(`tasks/${ownTask.id}/`))).toBe(true) // the other user's upload stays
  expect(fs.existsSync(path.join(media.dir, 'media', avatar))).toBe(false)
})
