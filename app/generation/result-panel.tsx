import { Link } from '@remix-run/react'
import type { ReactNode } from 'react'
import { downloadUrl, favouriteDownloadName } from '#app/generation/download-names.ts'
import { taskStatusText } from '#app/generation/task-status.ts'
import { MEDIA_RETENTION_DAYS, type ClientTask } from '#domain/generation/task-view.ts'

interface TaskResultPanelProps {
  task: ClientTask | null
  /** Shown before any task. */
  placeholder: string
  genericFailure: string
  /** The task's own output (image or video, progress, links) below its status. */
  children: (task: ClientTask) => ReactNode
}

/** The result panel: the task's status, a failure's message, then what the page shows of it. */
export function TaskResultPanel({ task, placeholder, genericFailure, children }: TaskResultPanelProps) {
  return (
    <section className="card generate-result" aria-live="polite">
      <h2>Result</h2>
      {!task ? (
        <p className="muted">{placeholder}</p>
      ) : (
        <>
          <p className="generate-status" data-status={task.status}>
            {taskStatusText(task)}
          </p>
          {task.status === 'failed' ? (
            <p className="form-error">
              {task.error ?? genericFailure}
              {task.refunds?.length ? null : ' Your credits have been refunded.'}
            </p>
          ) : null}
          {task.refunds?.length ? (
            <ul className="task-refunds" aria-label="Refunds">
              {task.refunds.map((line, index) => (
                <li key={index}>{line}</li>
              ))}
            </ul>
          ) : null}
          {children(task)}
        </>
      )}
    </section>
  )
}

/** A queued or running task's progress; without JavaScript, a link that reloads `page` with the task's state. */
export function TaskProgress({ task, page }: { task: ClientTask; page: string }) {
  return (
    <>
      <progress max={100} value={task.progress} aria-label="Progress" />
      <noscript>
        <p>
          <a href={`${page}?task=${task.id}`}>Refresh the status</a>
        </p>
      </noscript>
    </>
  )
}

/** Where the results stay, and for how long. */
export function KeptInHistory({ what, history }: { what: string; history: string }) {
  return (
    <p className="muted">
      {what} kept for {MEDIA_RETENTION_DAYS} days in your <Link to={history}>History</Link>.
    </p>
  )
}

/** The button that downloads the task's file under its download name. */
export function DownloadLink({
  task,
  url,
  className = 'button',
  children,
}: {
  task: ClientTask
  url: string
  className?: string
  children: ReactNode
}) {
  return (
    <a className={className} href={downloadUrl(url, favouriteDownloadName(task))} download>
      {children}
    </a>
  )
}
