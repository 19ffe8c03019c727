import { json } from '@remix-run/node'
import { likenessFixSchema } from '#domain/generation/likeness-fix.ts'
import { fixTask } from '#domain/generation/task-family.server.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'
import { submittedAnswer } from '#app/generation/submitted-answer.ts'

/** POST /api/async-image/task/{id}/fix { reasons, note }: a likeness fix of the owner's finished portrait. */
export const action = apiHandler(async ({ request, params }) => {
  const user = await requireUser(request)
  const requester = { userId: user.id, clientAddress: getClientAddress(request) }
  const fix = likenessFixSchema.parse(await readJson(request, { maxBytes: 16 * 1024 }))
  return json(submittedAnswer(await fixTask(getDb(), requester, params.id ?? '', fix)))
})
