import type { Task } from 'graphile-worker'
import { z } from 'zod'
import { checkPaymentProof, type LookupTransaction } from '#domain/payments/payment-check.server.ts'
import { verificationJobKey } from '#domain/payments/payment-verification.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getWorkerEnv } from '#worker/env.ts'
import { enqueueJob } from '#platform/jobs.server.ts'
import { lookupEthereumTransaction } from '../chains/etherscan.ts'
import { lookupTronTransaction } from '../chains/trongrid.ts'

const payloadSchema = z.object({
  proofId: z.string().uuid(),
  watchUntil: z.string().datetime(),
  failures: z.number().int().min(0),
})

/**
 * Checks one USDT payment proof on chain (domain/payments/payment-check.server.ts) and schedules the
 * next check itself: every minute while the transfer is not found or not final, with a growing
 * backoff while the chain API is down. The job key keeps one queued check a proof.
 */
export const verifyPayment: Task = async (payload, helpers) => {
  const request = payloadSchema.parse(payload)
  const db = getDb()
  const outcome = await checkPaymentProof(db, request, chainLookup(helpers.abortSignal))
  if (!outcome) return
  const { result, approved, next } = outcome
  helpers.logger.info(
    `payment proof ${request.proofId}: ${result.status} (${result.detail})${approved ? ', approved' : ''}`,
  )
  if (next) {
    await enqueueJob(
      db,
      'verify_payment',
      { ...request, failures: next.failures },
      { jobKey: verificationJobKey(request.proofId), runAt: next.runAt },
    )
  }
}

function chainLookup(signal: AbortSignal | undefined): LookupTransaction {
  const env = getWorkerEnv()
  const options = { timeoutMs: env.CHAIN_API_TIMEOUT_MS, signal: signal ?? new AbortController().signal, secrets: [] }
  return (network, transactionId) =>
    network === 'tron'
      ? lookupTronTransaction(transactionId, { baseUrl: env.TRONGRID_API_URL, apiKey: env.TRONGRID_API_KEY }, options)
      : lookupEthereumTransaction(
          transactionId,
          {
            baseUrl: env.ETHERSCAN_API_URL,
            apiKey: env.ETHERSCAN_API_KEY,
            confirmationsRequired: env.ETHEREUM_CONFIRMATIONS,
          },
          options,
        )
}
