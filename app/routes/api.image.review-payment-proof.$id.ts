import { json } from '@remix-run/node'
import { reviewRequestSchema } from '#domain/payments/payment-rules.ts'
import { reviewPaymentProof, toPublicProof } from '#domain/payments/payments.server.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

export const action = apiHandler(async ({ request, params }) => {
  const reviewer = await requirePermission(request, 'reviewPayments')
  const { approved, reason } = reviewRequestSchema.parse(await readJson(request))
  const proof = await reviewPaymentProof(getDb(), { proofId: params.id ?? '', reviewer, approved, reason })
  return json({
    message: approved ? 'Payment proof approved' : 'Payment proof rejected',
    proof: toPublicProof(proof),
  })
})
