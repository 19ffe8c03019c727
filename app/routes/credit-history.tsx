import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData, useNavigate } from '@remix-run/react'
import { useState } from 'react'
import { listCreditHistory, type CreditHistoryEntry } from '#domain/credits/credit-history.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { creditHistoryError } from '#domain/credits/credit-history-errors.ts'
import { getDb } from '#platform/db.server.ts'
import { seo } from '#app/document/seo.ts'

export const meta: MetaFunction = () =>
  seo({ title: 'Credit History', description: 'Your Pawtrait credit transactions.' })

const CREDIT_HISTORY_API = '/api/image/credit-history'

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request)
  return json({ history: await listCreditHistory(getDb(), user.id), credits: user.credits })
}

const typeLabels: Record<string, string> = { earn: 'Earn', spend: 'Spend', purchase: 'Purchase' }

export default function CreditHistory() {
  const loaded = useLoaderData<typeof loader>()
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
