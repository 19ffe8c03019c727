import { json } from '@remix-run/node'
import {
  createUserAsAdmin,
  englishUserFormMessages,
  listUsers,
  newUserSchema,
} from '#domain/user-management/user-admin.server.ts'
import { toPublicUser } from '#domain/accounts/user.server.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'
import { HttpError } from '#domain/http-error.server.ts'

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
