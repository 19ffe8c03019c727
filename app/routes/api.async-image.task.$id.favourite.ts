import { json } from '@remix-run/node'
import { chooseFavourite, favouriteSchema } from '#domain/generation/task-versions.server.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

export const handle = apiMethods('PUT')

/** PUT /api/async-image/task/{id}/favourite { index }: which version stands for the task. */
export const action = apiHandler(async ({ request, params }) => {
  requireMethod(request, handle)
  const user = await requireUser(request)
  const { index } = favouriteSchema.parse(await readJson(request))
  await chooseFavourite(getDb(), user.id, params.id ?? '', index)
  return json({ message: 'Favourite saved', favouriteIndex: index })
})
