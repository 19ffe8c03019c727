import { json } from '@remix-run/node'
import { createSharePage, shareSchema } from '#domain/sharing/share-pages.server.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

export const handle = apiMethods('POST')

/**
 * POST /api/async-image/task/{id}/share { index, listed } -> 201 { url }: a public page of that
 * version; 200 { url } with the version's page when it has one already.
 */
export const action = apiHandler(async ({ request, params }) => {
  requireMethod(request, handle)
  const user = await requireUser(request)
  const input = shareSchema.parse(await readJson(request))
  const { url, created } = await createSharePage(getDb(), user.id, params.id ?? '', input)
  return json({ url }, created ? 201 : 200)
})
