import { json } from '@remix-run/node'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { submissionRefusal } from '#app/utils/form-errors.server.ts'
import { createCardCheckout } from '#domain/payments/card-checkout.server.ts'
import { cardCheckoutRequestSchema } from '#domain/payments/payment-rules.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

/** POST /api/payment/checkout `{ creditAmount }` → `{ url }`: the Stripe Checkout page to pay on (decision 0041). */
export const action = apiHandler(async ({ request }) => {
  const user = await requireUser(request)
  const parsed = cardCheckoutRequestSchema.safeParse(await readJson(request))
  if (!parsed.success) throw submissionRefusal(parsed.error.flatten().fieldErrors)
  const { url } = await createCardCheckout(getDb(), user, parsed.data.creditAmount)
  return json({ url })
})
