import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData, useNavigate } from '@remix-run/react'
import { useState } from 'react'
import { listCreditHistory, type CreditHistoryEntry } from '#domain/credits/credit-history.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { creditHistoryError } from '#domain/credits/credit-history-errors.ts'
import { getDb } from '#platform/db.server.ts'
import { type CardCheckoutNotice, confirmCardCheckout } from '#domain/payments/card-checkout.server.ts'
import { seo } from '#app/document/seo.ts'

export const meta: MetaFunction = () =>
  seo({ title: 'Credit History', description: 'Your Pawtrait credit transactions.' })

const CREDIT_HISTORY_API = '/api/image/credit-history'

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request)
  const db = getDb()
  // Stripe's success page: the buyer's session is confirmed before the history is read.
  const sessionId = new URL(request.url).searchParams.get('session_id')
  const card = sessionId ? await confirmCardCheckout(db, user.id, sessionId) : null
  const { credits } = await db.selectFrom('users').select('credits').where('id', '=', user.id).executeTakeFirstOrThrow()
  return json({ history: await listCreditHistory(db, user.id), credits, card })
}

const cardNotices: Record<CardCheckoutNotice['status'], (credits: number) => string> = {
  paid: (credits) => `Thank you! Your card payment went through: ${credits} credits were added.`,
  processing: (credits) =>
    `Your payment is being processed; the ${credits} credits are added as soon as it clears (we email you if it fails).`,
  open: () => 'Your card payment is not confirmed yet; this page shows the credits once it is.',
  failed: () => 'Your card payment did not go through, so no credits were added.',
  expired: () => 'This card payment was not completed in time; no credits were added.',
}

const typeLabels: Record<string, string> = { earn: 'Earn', spend: 'Spend', purchase: 'Purchase' }

export default function CreditHistory() {
  const loaded = useLoaderData<typeof loader>()
  const card = loaded.card
  const navigate = useNavigate()
  const [data, setData] = useState(loaded)
  const [error, setError] = useState<string | null>(null)
  const [refreshing, setRefreshing] = useState(false)

  async function refresh() {
    setRefreshing(true)
    setError(null)
    try {
      const response = await fetch(CREDIT_HISTORY_API)
      const body = await response.json().catch(() => ({}))
      if (response.ok) return setData(body as typeof loaded)
      const failure = creditHistoryError({ status: response.status, message: body.message })
      setError(failure.message)
      if (failure.logout) setTimeout(() => navigate('/login?redirectTo=/credit-history'), 1500)
    } catch {
      setError(creditHistoryError('network').message)
    } finally {
      setRefreshing(false)
    }
  }

  return (
    <section className="credit-history">
      <h1>Credit History</h1>
      {card ? (
        <p className={card.status === 'paid' ? 'form-success card-notice' : 'card-notice'} role="status">
          {cardNotices[card.status](card.credits)}
        </p>
      ) : null}
      <div className="row credit-summary">
        <p className="credit-balance grow">
          Current credits: <strong>{data.credits}</strong>
        </p>
        <button type="button" className="button secondary" onClick={refresh} disabled={refreshing}>
          {refreshing ? 'Refreshing…' : 'Refresh'}
        </button>
        <Link className="button" to="/purchase-credits">
          Purchase Credits
        </Link>
      </div>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {data.history.length === 0 ? (
        <p className="muted">No credit transactions yet.</p>
      ) : (
        <table className="data">
          <thead>
            <tr>
              <th scope="col">Type</th>
              <th scope="col">Amount</th>
              <th scope="col">Description</th>
              <th scope="col">Date</th>
            </tr>
          </thead>
          <tbody>
            {data.history.map((entry, index) => (
              <HistoryRow key={`${entry.createdAt}-${index}`} entry={entry} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}

function HistoryRow({ entry }: { entry: CreditHistoryEntry }) {
  return (
    <tr>
      <td>{typeLabels[entry.type] ?? entry.type}</td>
      <td className={entry.amount < 0 ? 'amount-negative' : 'amount-positive'}>
        {entry.amount > 0 ? `+${entry.amount}` : entry.amount}
      </td>
      <td>{entry.description}</td>
      <td>
        <time dateTime={entry.createdAt}>{new Date(entry.createdAt).toLocaleString()}</time>
      </td>
    </tr>
  )
}
