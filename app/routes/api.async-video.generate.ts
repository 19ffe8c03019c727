import { json } from '@remix-run/node'
import { readVideoGenerationForm } from '#app/generation/generation-forms.server.ts'
import { submitVideoGeneration } from '#domain/generation/video-submission.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { getDb } from '#platform/db.server.ts'
import { submissionRefusal } from '#app/utils/form-errors.server.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'

/** POST /api/async-video/generate (multipart): superadmins and the owner pay for and queue a video task. */
export const action = apiHandler(async ({ request }) => {
  const user = await requirePermission(request, 'generateVideos')
  const submission = await readVideoGenerationForm(request)
  if (submission.status !== 'success') throw submissionRefusal(submission.error)
  const { taskId, cost, credits } = await submitVideoGeneration(getDb(), user, submission.value)
  return json({ taskId, status: 'queued', type: 'video', creditCost: cost, credits, message: 'Task submitted' })
})
