import { json } from '@remix-run/node'
import { listPendingProofs, toPendingProof } from '#app/models/payments.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requireRole } from '#app/utils/auth.server.ts'
import { getDb } from '#app/utils/db.server.ts'

export const loader = apiHandler(async ({ request }) => {
  await requireRole(request, 'superadmin')
  const proofs = await listPendingProofs(getDb())
  return json(proofs.map(toPendingProof))
})
