import { json } from '@remix-run/node'
import { newStyleSchema } from '#domain/gallery/gallery-forms.ts'
import { createGalleryStyle, listStyles } from '#domain/gallery/styles.server.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { getDb } from '#platform/db.server.ts'

/** GET /api/image/styles: the gallery's style categories, public. */
export const loader = apiHandler(async () => json({ styles: await listStyles(getDb()) }))

/** POST /api/image/styles { value, label }: admins add a gallery style. */
export const action = apiHandler(async ({ request }) => {
  if (request.method !== 'POST') return json({ message: 'Method not allowed' }, { status: 405 })
  await requirePermission(request, 'manageGallery')
  const style = await createGalleryStyle(getDb(), newStyleSchema.parse(await readJson(request)))
  return json({ message: 'Style created', style }, { status: 201 })
})
