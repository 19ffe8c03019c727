// The Stripe fake as a process of its own, for the end-to-end tests (tests/e2e/worker-app.ts starts one
// beside the app): STRIPE_FAKE_PORT, the key and webhook secret the app is given, and where the
// app's webhook endpoint is. Payments on its hosted page deliver their event before the redirect.
import { startStripeFake } from './stripe.ts'

const fake = await startStripeFake({
  port: Number(process.env.STRIPE_FAKE_PORT),
  secretKey: process.env.STRIPE_SECRET_KEY,
  webhookSecret: process.env.STRIPE_WEBHOOK_SECRET,
  webhookUrl: process.env.STRIPE_FAKE_WEBHOOK_URL,
})
console.log(`[stripe fake] listening at ${fake.url}`)
process.on('SIGTERM', () => void fake.close().then(() => process.exit(0)))
