import { json } from '@remix-run/node'
import { upscaleRequestSchema } from '#domain/generation/upscale-params.ts'
import { upscaleTask } from '#domain/generation/upscale-request.server.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

/** POST /api/async-image/task/{id}/upscale { index, scale }: "Make it bigger" of the owner's finished version. */
export const action = apiHandler(async ({ request, params }) => {
  const user = await requireUser(request)
  const asked = upscaleRequestSchema.parse(await readJson(request, { maxBytes: 16 * 1024 }))
  const { taskId } = await upscaleTask(getDb(), user.id, params.id ?? '', asked)
  return json({ taskId })
})
