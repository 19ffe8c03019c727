import { action as submitAction } from '#app/routes/api.image.submit-payment-proof.ts'
import { getDb } from '#platform/db.server.ts'
import { callRoute, makeRequest } from './app.ts'

/** Submits a proof through POST /api/image/submit-payment-proof (multipart); answers status and body. */
export async function submitProof(token: string | undefined, fields: Record<string, string | Blob>) {
  const body = new FormData()
  for (const [name, value] of Object.entries(fields)) body.append(name, value)
  const response = await callRoute(
    submitAction,
    makeRequest('/api/image/submit-payment-proof', { method: 'POST', token, body }),
  )
  return { status: response.status, body: await response.json() }
}

export async function creditsOf(userId: string) {
  const user = await getDb().selectFrom('users').select('credits').where('id', '=', userId).executeTakeFirstOrThrow()
  return user.credits
}

/** The review status of a payment proof, or undefined when there is no such proof. */
export async function proofStatus(proofId: string) {
  const row = await getDb().selectFrom('payment_proofs').select('status').where('id', '=', proofId).executeTakeFirst()
  return row?.status
}
