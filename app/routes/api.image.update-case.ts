import { parseWithZod } from '@conform-to/zod'
import { json } from '@remix-run/node'
import { templateUploadSchema } from '#domain/gallery/gallery-forms.ts'
import { createTemplateFromUpload } from '#domain/gallery/templates.server.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { getDb } from '#platform/db.server.ts'
import { submissionRefusal } from '#app/utils/form-errors.server.ts'
import { readMultipartForm } from '#app/utils/multipart.server.ts'
import { getStorage } from '#platform/storage.server.ts'

/** POST /api/image/update-case (multipart: image, templatePrompt, style, prompt, the guided fields): admins add a template. */
export const action = apiHandler(async ({ request }) => {
  if (request.method !== 'POST') return json({ message: 'Method not allowed' }, { status: 405 })
  const admin = await requirePermission(request, 'manageGallery')
  const submission = parseWithZod(await readMultipartForm(request), { schema: templateUploadSchema })
  if (submission.status !== 'success') throw submissionRefusal(submission.error)
  const image = await createTemplateFromUpload(getDb(), getStorage(), submission.value, admin.id)
  return json({ message: 'Template uploaded successfully', image }, { status: 201 })
})
