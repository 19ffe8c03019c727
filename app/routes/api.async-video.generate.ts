import { json } from '@remix-run/node'
import { readVideoGenerationForm, submitVideoGeneration } from '#app/features/generation/video-generation.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { getDb } from '#platform/db.server.ts'
import { firstSubmissionError } from '#app/utils/form-errors.server.ts'
import { badRequest } from '#app/utils/http.server.ts'
import { requirePermission } from '#app/utils/permissions.server.ts'

/** POST /api/async-video/generate (multipart): superadmins and the owner pay for and queue a video task. */
export const action = apiHandler(async ({ request }) => {
  const user = await requirePermission(request, 'generateVideos')
  const submission = await readVideoGenerationForm(request)
  if (submission.status !== 'success') throw badRequest(firstSubmissionError(submission.error))
  const { taskId, cost, credits } = await submitVideoGeneration(getDb(), user, submission.value)
  return json({ taskId, status: 'queued', type: 'video', creditCost: cost, credits, message: 'Task submitted' })
})
