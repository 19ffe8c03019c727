import { json } from '@remix-run/node'
import { changeVersionTitle, versionTitleChangeSchema } from '#domain/generation/version-title.server.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

export const handle = apiMethods('PUT')

/** PUT /api/async-image/task/{id}/title { index, title, style, font }: sets, changes or (empty) removes a version's title, free. */
export const action = apiHandler(async ({ request, params }) => {
  requireMethod(request, handle)
  const user = await requireUser(request)
  const change = versionTitleChangeSchema.parse(await readJson(request))
  const answer = await changeVersionTitle(getDb(), user.id, params.id ?? '', change)
  return json({ message: answer.title ? 'Title set' : 'Title removed', ...answer })
})
