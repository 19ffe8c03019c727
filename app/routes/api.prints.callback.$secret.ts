import { json } from '@remix-run/node'
import { apiHandler, readBodyText } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { receiveLabCallback } from '#domain/prints/print-callbacks.server.ts'
import { getDb } from '#platform/db.server.ts'

export const handle = apiMethods('POST')

/**
 * POST /api/prints/callback/{secret}: the print lab's CloudEvents. Answered 200 at once; the order
 * is re-read from the lab by a job. Any other secret is a 404.
 */
export const action = apiHandler(async ({ request, params }) => {
  requireMethod(request, handle)
  let event: unknown = null
  try {
    event = JSON.parse(await readBodyText(request, 256 * 1024))
  } catch {
    // Only the subject is read; a body that is not JSON names no order.
  }
  await receiveLabCallback(getDb(), params.secret ?? '', event)
  return json({ received: true })
})
