import { json } from '@remix-run/node'
import { paymentDestinations } from '#domain/payments/payments.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'

/** `address` is the TRC20 wallet, the one address the spec's client reads. */
export const loader = apiHandler(async () => {
  const destinations = paymentDestinations()
  return json({ address: destinations.trc20, ...destinations })
})
