import { Icon } from '#app/components/icons/icon.tsx'
import { useDoneNotifications } from '#app/generation/use-done-notifications.ts'
import { useTaskStore, useTaskStoreSnapshot } from '#app/generation/task-store-context.tsx'
import { isActive, taskStatusText } from '#app/generation/task-status.ts'
import type { ClientTask } from '#domain/generation/task-view.ts'
import { DownloadLink } from '#app/generation/result-panel.tsx'

/**
 * Today's Tasks: a floating button (with a dot while a task is active) and a left sidebar listing
 * the tasks submitted today, as the task store holds them (task-store.ts: the live stream, the
 * polling while it is down, what ended). It opens when a page submits a task.
 */
export function TaskSidebar() {
  const store = useTaskStore()
  const { tasks, sidebarOpen: open } = useTaskStoreSnapshot()
  const active = tasks.filter(isActive)
  const notifications = useDoneNotifications()

  return (
    <>
      <button
        type="button"
        className="task-fab"
        aria-expanded={open}
        aria-controls="task-sidebar"
        onClick={() => store?.setSidebarOpen(!open)}
      >
        <Icon name="tasks" /> Today&apos;s Tasks
        {active.length > 0 ? <span className="task-fab-dot" role="status" aria-label="Tasks in progress" /> : null}
      </button>
      <aside id="task-sidebar" className="task-sidebar" data-open={open} aria-label="Today's Tasks" hidden={!open}>
        <header className="task-sidebar-header">
          <h2>Today&apos;s Tasks</h2>
          {notifications.supported ? (
            <button
              type="button"
              className="task-notify"
              aria-pressed={notifications.enabled}
              onClick={notifications.enabled ? notifications.disable : () => void notifications.enable()}
            >
              {notifications.enabled ? (
                <>
                  <Icon name="bell" /> Notifying when done
                </>
              ) : (
                <>
                  <Icon name="bellOff" /> Notify me when done
                </>
              )}
            </button>
          ) : null}
          <button
            type="button"
            className="task-sidebar-close"
            aria-label="Close"
            onClick={() => store?.setSidebarOpen(false)}
          >
            ×
          </button>
        </header>
        {tasks.length === 0 ? (
          <p className="muted">No tasks submitted today.</p>
        ) : (
          <ul className="task-list">
            {tasks.map((task) => (
              <TaskItem key={task.id} task={task} />
            ))}
          </ul>
        )}
      </aside>
    </>
  )
}

function TaskItem({ task }: { task: ClientTask }) {
  const url = task.result?.imageUrl ?? task.result?.videoUrl
  return (
    <li className="task-item" data-status={task.status}>
      <div className="task-item-head">
        <strong>{task.description}</strong>
        <time dateTime={task.submittedAt}>
          {new Date(task.submittedAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}
        </time>
      </div>
      <p className="task-status">{taskStatusText(task)}</p>
      {task.status === 'processing' ? (
        <progress max={100} value={task.progress} aria-label="Progress">
          {task.progress}%
        </progress>
      ) : null}
      {task.status === 'failed' && task.error ? (
        <p className="task-error">
          {task.error} <span className="muted">Your credits have been refunded.</span>
        </p>
      ) : null}
      {task.status === 'completed' && url ? (
        <div className="task-result">
          {task.type === 'video' ? (
            <video src={url} controls preload="metadata" />
          ) : (
            <img src={url} alt="Generated result" loading="lazy" />
          )}
          <DownloadLink task={task} url={url} className="button secondary">
            Download
          </DownloadLink>
        </div>
      ) : null}
    </li>
  )
}
