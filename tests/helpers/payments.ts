import { getDb } from '#app/utils/db.server.ts'

/** The review status of a payment proof, or undefined when there is no such proof. */
export async function proofStatus(proofId: string) {
  const row = await getDb().selectFrom('payment_proofs').select('status').where('id', '=', proofId).executeTakeFirst()
  return row?.status
}
