import { parseWithZod } from '@conform-to/zod'
import { json } from '@remix-run/node'
import { proofSubmissionSchema } from '#domain/payments/payment-rules.ts'
import { PROOF_SUBMITTED_MESSAGE, submitPaymentProof, toPublicProof } from '#domain/payments/payments.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'
import { badRequest } from '#domain/http-error.server.ts'
import { readMultipartForm } from '#app/utils/multipart.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'

export const action = apiHandler(async ({ request }) => {
  const user = await requireUser(request)
  const submission = parseWithZod(await readMultipartForm(request), { schema: proofSubmissionSchema })
  if (submission.status !== 'success') {
    throw badRequest(Object.values(submission.error ?? {}).flat()[0] ?? 'Invalid payment proof')
  }
  const proof = await submitPaymentProof(getDb(), user, submission.value, getClientAddress(request))
  return json({ message: PROOF_SUBMITTED_MESSAGE, proof: toPublicProof(proof) }, { status: 201 })
})
