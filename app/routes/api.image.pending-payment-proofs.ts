import { json } from '@remix-run/node'
import { listPendingProofs, toPendingProof } from '#app/features/payments/payments.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requirePermission } from '#app/utils/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

export const loader = apiHandler(async ({ request }) => {
  await requirePermission(request, 'reviewPayments')
  const proofs = await listPendingProofs(getDb())
  return json(proofs.map(toPendingProof))
})
