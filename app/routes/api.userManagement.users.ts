import { json } from '@remix-run/node'
import {
  createUserAsAdmin,
  englishUserFormMessages,
  listUsers,
  newUserSchema,
} from '#app/features/users/user-admin.server.ts'
import { toPublicUser } from '#app/features/accounts/user.server.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { requirePermission } from '#app/utils/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'
import { HttpError } from '#app/utils/http.server.ts'

export const loader = apiHandler(async ({ request }) => {
  await requirePermission(request, 'manageUsers')
  const users = await listUsers(getDb())
  return json(users.map(toPublicUser))
})

export const action = apiHandler(async ({ request }) => {
  await requirePermission(request, 'manageUsers')
  if (request.method !== 'POST') throw new HttpError(405, 'Method not allowed')
  const input = newUserSchema(englishUserFormMessages).parse(await readJson(request))
  const user = await createUserAsAdmin(getDb(), input)
  return json(toPublicUser(user), { status: 201 })
})
