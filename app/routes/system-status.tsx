import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData, useRevalidator } from '@remix-run/react'
import { type ReactNode, useEffect } from 'react'
import { systemStatus } from '#domain/operator/system-status.server.ts'
import { getTaskStreams } from '#domain/live-updates/live-updates.server.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

export const meta: MetaFunction = () => [{ title: 'System Status — Pawtrait' }]

const REFRESH_MS = 10_000

/** Super administrators only: guests go to /login and other roles to / (the permissions table). */
export async function loader({ request }: LoaderFunctionArgs) {
  await requirePermission(request, 'viewSystemStatus')
  const status = { ...(await systemStatus(getDb())), liveUpdates: getTaskStreams().status() }
  return json(status, { headers: { 'Cache-Control': 'no-store' } })
}

const breakerStateText = { closed: 'Closed', half_open: 'Half-open (one probe)', open: 'Open' } as const

/** Server-rendered, so it works without JavaScript; with it, the figures refresh every 10 s. */
export default function SystemStatusPage() {
  const status = useLoaderData<typeof loader>()
  const revalidator = useRevalidator()
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible' && revalidator.state === 'idle') revalidator.revalidate()
    }, REFRESH_MS)
    return () => clearInterval(timer)
  }, [revalidator])

  return (
    <section className="system-status">
      <h1>System Status</h1>
      <p className="muted">
        As of <Moment at={status.checkedAt} /> · <Link to="/system-status">Refresh</Link>
      </p>

      <h2>Tasks</h2>
      <StatusTable
        columns={['Kind', 'Queued', 'Running', 'Completed (1 h)', 'Failed (1 h)', 'Completed (24 h)', 'Failed (24 h)']}
      >
        {status.tasks.map((row) => (
          <tr key={row.kind}>
            <th scope="row">{row.kind}</th>
            <td>{row.queued}</td>
            <td>{row.running}</td>
            <td>{row.completedLastHour}</td>
            <td>{row.failedLastHour}</td>
            <td>{row.completedLastDay}</td>
            <td>{row.failedLastDay}</td>
          </tr>
        ))}
      </StatusTable>

      <h2>Most common failure reasons (24 h)</h2>
      {status.failureReasons.length === 0 ? (
        <p className="muted">No failed tasks in the last day.</p>
      ) : (
        <ol className="failure-reasons">
          {status.failureReasons.map((entry) => (
            <li key={entry.reason}>
              <strong>{entry.count}×</strong> {entry.reason}
            </li>
          ))}
        </ol>
      )}

      <h2>Rate limits</h2>
      {status.rateLimits.tripped.length === 0 && status.rateLimits.delayedAccounts === 0 ? (
        <p className="muted">No limit is reached now.</p>
      ) : (
        <StatusTable columns={['Limit', 'Reached by']}>
          {status.rateLimits.tripped.map((limit) => (
            <tr key={limit.name}>
              <th scope="row">{limit.name}</th>
              <td>{limit.subjects}</td>
            </tr>
          ))}
          {status.rateLimits.delayedAccounts > 0 ? (
            <tr>
              <th scope="row">login:account-delay</th>
              <td>{status.rateLimits.delayedAccounts}</td>
            </tr>
          ) : null}
        </StatusTable>
      )}

      <h2>Providers</h2>
      {status.providers.length === 0 ? (
        <p className="muted">No provider check recorded yet (npm run providers:check, or a worker start).</p>
      ) : (
        <StatusTable columns={['Provider', 'Model', 'Result', 'Detail', 'Checked']}>
          {status.providers.map((check) => (
            <tr key={check.provider}>
              <th scope="row">{check.provider}</th>
              <td>{check.model}</td>
              <td className={check.ok ? 'status-ok' : 'status-failed'}>{check.ok ? 'OK' : 'Failed'}</td>
              <td>{check.detail}</td>
              <td>
                <Moment at={check.checkedAt} />
              </td>
            </tr>
          ))}
        </StatusTable>
      )}

      <h2>Provider breakers</h2>
      {status.breakers.length === 0 ? (
        <p className="muted">No image provider has failed yet: every breaker is closed.</p>
      ) : (
        <StatusTable columns={['Provider', 'State', 'Failures counted', 'Opened', 'Opened because', 'Last error']}>
          {status.breakers.map((breaker) => (
            <tr key={breaker.provider}>
              <th scope="row">{breaker.provider}</th>
              <td className={breaker.state === 'closed' ? 'status-ok' : 'status-failed'}>
                {breakerStateText[breaker.state]}
              </td>
              <td>{breaker.failures}</td>
              <td>{breaker.openedAt ? <Moment at={breaker.openedAt} /> : '—'}</td>
              <td>{breaker.openReason ?? '—'}</td>
              <td>
                {breaker.lastError ?? '—'}
                {breaker.lastErrorAt ? (
                  <>
                    {' '}
                    (<Moment at={breaker.lastErrorAt} />)
                  </>
                ) : null}
              </td>
            </tr>
          ))}
        </StatusTable>
      )}

      <h2>Workers alive (last minute)</h2>
      {status.workers.length === 0 ? (
        <p className="status-failed">No worker process has been seen in the last minute.</p>
      ) : (
        <StatusTable columns={['Machine', 'PID', 'Image slots', 'Version', 'Started', 'Last seen']}>
          {status.workers.map((worker) => (
            <tr key={worker.id}>
              <th scope="row">{worker.hostname}</th>
              <td>{worker.pid}</td>
              <td>{worker.concurrency}</td>
              <td>{worker.version}</td>
              <td>
                <Moment at={worker.startedAt} />
              </td>
              <td>
                <Moment at={worker.seenAt} />
              </td>
            </tr>
          ))}
        </StatusTable>
      )}

      <h2>Content-Security-Policy violations</h2>
      <p className={status.cspReports.lastDay === 0 ? 'muted' : 'status-failed'}>
        {status.cspReports.lastDay} reported in the last day.
      </p>
      {status.cspReports.recent.length > 0 ? (
        <StatusTable columns={['Directive', 'Blocked', 'Page', 'Mode', 'Count', 'Last seen']}>
          {status.cspReports.recent.map((report) => (
            <tr key={report.id}>
              <th scope="row" className="csp-directive">
                {report.directive}
              </th>
              <td className="csp-url">{report.blockedUrl}</td>
              <td className="csp-url">{report.page}</td>
              <td>{report.disposition}</td>
              <td>{report.count}</td>
              <td>
                <Moment at={report.lastSeen} />
              </td>
            </tr>
          ))}
        </StatusTable>
      ) : null}

      <h2>Deployment</h2>
      <dl className="deployment">
        <dt>Storage</dt>
        <dd>
          {status.storage.driver} · {status.storage.location}
        </dd>
        <dt>Moderation</dt>
        <dd data-moderation={status.moderation.on ? 'on' : 'off'}>{status.moderation.summary}</dd>
        <dt>Card payments</dt>
        <dd data-card-payments={status.cardPayments.on ? 'on' : 'off'}>{status.cardPayments.summary}</dd>
        <dt>Print lab</dt>
        <dd data-print-lab={status.printLab.mode ?? 'off'}>{status.printLab.summary}</dd>
        <dt>Build</dt>
        <dd>{status.version}</dd>
        <dt>Live updates (this web machine)</dt>
        <dd>
          {status.liveUpdates.streams} open streams · {liveListenerText[status.liveUpdates.listener]}
        </dd>
      </dl>
    </section>
  )
}

const liveListenerText = {
  idle: 'not listening yet (no stream opened)',
  listening: 'hearing task changes',
  reconnecting: 'reconnecting to the database; pages poll meanwhile',
}

function StatusTable({ columns, children }: { columns: string[]; children: ReactNode }) {
  return (
    <div className="table-scroll">
      <table className="data">
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col" key={column}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  )
}

function Moment({ at }: { at: string }) {
  return <time dateTime={at}>{new Date(at).toLocaleString()}</time>
}
