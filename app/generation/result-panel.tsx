import { Link } from '@remix-run/react'
import { useEffect, useState, type ReactNode } from 'react'
import {
  favouriteDownloadName,
  downloadUrl,
  MEDIA_RETENTION_DAYS,
  TASK_UPDATED_EVENT,
  taskStatusText,
  type ClientTask,
} from '#app/generation/task-client.ts'

/**
 * The task a generator page shows: the one its loader found (after a submission without
 * JavaScript), then the one it submitted. The Today's Tasks sidebar follows it; the page takes its updates.
 */
export function useShownTask(loaded: ClientTask | null) {
  const [current, setCurrent] = useState<ClientTask | null>(loaded)
  useEffect(() => {
    const onUpdate = (event: Event) => {
      const task = (event as CustomEvent<ClientTask>).detail
      setCurrent((shown) => (shown?.id === task.id ? { ...shown, ...task } : shown))
    }
    window.addEventListener(TASK_UPDATED_EVENT, onUpdate)
    return () => window.removeEventListener(TASK_UPDATED_EVENT, onUpdate)
  }, [])
  return [current, setCurrent] as const
}

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
