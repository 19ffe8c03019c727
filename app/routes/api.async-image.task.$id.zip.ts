import { listTaskVersions } from '#domain/generation/task-versions.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { zipResponse } from '#app/utils/zip-response.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getStorage } from '#platform/storage.server.ts'
import { downloadName, versionFileName } from '#app/generation/download-names.ts'
import { findTaskView } from '#domain/generation/user-tasks.server.ts'

/** GET /api/async-image/task/{id}/zip: every version of the owner's finished image, as one zip. */
export const loader = apiHandler(async ({ request, params }) => {
  const user = await requireUser(request)
  const taskId = params.id ?? ''
  const versions = await listTaskVersions(getDb(), user.id, taskId)
  const task = await findTaskView(getDb(), user.id, taskId, 'image')
  const name = task ? downloadName(task) : `pet-portrait-${taskId.slice(0, 8)}`
  return zipResponse(
    getStorage(),
    name,
    versions.map(({ index, key }) => ({ name: versionFileName(name, index, key), key })),
  )
})
