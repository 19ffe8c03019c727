import { json } from '@remix-run/node'
import { rerollTask } from '#domain/generation/task-family.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'
import { submittedAnswer } from '#app/generation/submitted-answer.ts'

/** POST /api/async-image/task/{id}/reroll: the owner's finished image task again, with a new seed. */
export const action = apiHandler(async ({ request, params }) => {
  const user = await requireUser(request)
  const requester = { userId: user.id, clientAddress: getClientAddress(request) }
  return json(submittedAnswer(await rerollTask(getDb(), requester, params.id ?? '')))
})
