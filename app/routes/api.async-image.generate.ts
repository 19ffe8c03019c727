import { json } from '@remix-run/node'
import { readImageGenerationForm } from '#app/generation/generation-forms.server.ts'
import { submitImageGeneration } from '#domain/generation/image-submission.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'
import { submissionRefusal } from '#app/utils/form-errors.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'
import { submittedAnswer } from '#app/generation/submitted-answer.ts'

/** POST /api/async-image/generate (multipart): pays for and queues an image task. */
export const action = apiHandler(async ({ request }) => {
  const user = await requireUser(request)
  const submission = await readImageGenerationForm(request)
  if (submission.status !== 'success') throw submissionRefusal(submission.error)
  const task = await submitImageGeneration(getDb(), user, submission.value, getClientAddress(request))
  return json(submittedAnswer(task))
})
