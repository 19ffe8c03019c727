import { json } from '@remix-run/node'
import { listPendingProofs, toPendingProof } from '#domain/payments/payments.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

export const loader = apiHandler(async ({ request }) => {
  await requirePermission(request, 'reviewPayments')
  const proofs = await listPendingProofs(getDb())
  return json(proofs.map(toPendingProof))
})
