// Issue 40's figure: 200 webhook deliveries of 50 paid Checkout Sessions (each delivered 4 times,
// all at once), against the built web server and the Stripe fake: every session must be credited
// exactly once, and each delivery's answer is timed (the fake signs, the web verifies and applies).
import { createUser } from '#domain/accounts/user.server.ts'
import { createSession } from '#domain/sessions/session.server.ts'
import { startStripeFake, type WebhookDelivery } from '#tests/fakes/stripe.ts'
import { percentile, round, startProcess, type scratchDatabase } from './lib.ts'

const SESSIONS = 50
const DELIVERIES_EACH = 4
const CREDITS = 100

export async function benchCardWebhooks({ db, url }: Awaited<ReturnType<typeof scratchDatabase>>) {
  // No endpoint yet: paying records each signed event without sending it.
  const stripe = await startStripeFake({ webhookUrl: null })
  const web = await startProcess('server/index.ts', { DATABASE_URL: url, ...stripe.env }, 'is running at')
  try {
    const buyers = await Promise.all(
      Array.from({ length: SESSIONS }, async (_, index) => {
        const user = await createUser(db, { email: `card${index}@example.com`, name: `Card ${index}`, password: 'x' })
        const { token } = await createSession(db, user.id)
        return { user, token }
      }),
    )
    const deliveries: WebhookDelivery[] = []
    for (const buyer of buyers) {
      const answer = await fetch(`${web.url}/api/payment/checkout`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-auth-token': buyer.token },
        body: JSON.stringify({ creditAmount: CREDITS }),
      })
      if (answer.status !== 200) throw new Error(`checkout answered ${answer.status}: ${await answer.text()}`)
      const sessionId = new URL(((await answer.json()) as { url: string }).url).pathname.split('/').at(-1)!
      await stripe.pay(sessionId)
      deliveries.push(stripe.deliveries.at(-1)!)
    }

    const deliver = async (delivery: WebhookDelivery) => {
      const started = performance.now()
      const answer = await fetch(`${web.url}/api/stripe/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': delivery.signature },
        body: delivery.body,
      })
      await answer.arrayBuffer()
      return { ms: performance.now() - started, status: answer.status }
    }
    const started = performance.now()
    const answers = await Promise.all(
      deliveries.flatMap((delivery) => Array.from({ length: DELIVERIES_EACH }, () => deliver(delivery))),
    )
    const wallMs = performance.now() - started

    const purchases = await db
      .selectFrom('credit_transactions')
      .select(['user_id', (eb) => eb.fn.countAll<string>().as('lines')])
      .where('type', '=', 'purchase')
      .where(
        'user_id',
        'in',
        buyers.map((buyer) => buyer.user.id),
      )
      .groupBy('user_id')
      .execute()
    const balances = await db
      .selectFrom('users')
      .select(['id', 'credits'])
      .where(
        'id',
        'in',
        buyers.map((buyer) => buyer.user.id),
      )
      .execute()
    const creditedOnce = buyers.filter((buyer) => {
      const lines = Number(purchases.find((row) => row.user_id === buyer.user.id)?.lines ?? 0)
      const balance = balances.find((row) => row.id === buyer.user.id)?.credits
      return lines === 1 && balance === buyer.user.credits + CREDITS
    }).length
    if (creditedOnce !== SESSIONS)
      throw new Error(`only ${creditedOnce} of ${SESSIONS} sessions were credited exactly once`)
    const times = answers.map((answer) => answer.ms).sort((a, b) => a - b)
    return {
      deliveries: answers.length,
      'answered 200': answers.filter((answer) => answer.status === 200).length,
      'sessions credited exactly once': `${creditedOnce}/${SESSIONS}`,
      'delivery answer p50 (ms)': round(percentile(times, 50)),
      'delivery answer p95 (ms)': round(percentile(times, 95)),
      'delivery answer max (ms)': round(times.at(-1)!),
      'all 200 deliveries (ms)': round(wallMs),
    }
  } finally {
    await web.stop()
    await stripe.close()
  }
}
