import { useRevalidator } from '@remix-run/react'
import { useCallback, useEffect, useRef, useState } from 'react'
import { Icon } from '#app/components/icons/icon.tsx'
import { useDoneNotifications } from '#app/generation/use-done-notifications.ts'
import { useTaskStream } from '#app/generation/use-task-stream.ts'
import {
  endedTasks,
  isActive,
  mergeTasks,
  POLL_INTERVAL_MS,
  readSavedTasks,
  TASK_SUBMITTED_EVENT,
  TASK_UPDATED_EVENT,
  taskFromSubmission,
  taskStatusText,
  saveTasks,
  taskUrl,
  USER_REFRESH_DELAY_MS,
  type ClientTask,
  type SubmittedTask,
} from '#app/generation/task-client.ts'
import { DownloadLink } from '#app/generation/result-panel.tsx'

/**
 * Today's Tasks: a floating button (with a dot while a task is active) and a left sidebar listing
 * the tasks submitted today. Changes arrive over the live stream; while it is not up, active tasks
 * are polled every 2 s, and only while there are some. When one finishes, the root loader is
 * revalidated 0.5 s later so the credits shown are current.
 */
export function TaskSidebar({ userId }: { userId: string }) {
  const [tasks, setTasks] = useState<ClientTask[]>([])
  const [open, setOpen] = useState(false)
  const [loaded, setLoaded] = useState(false)
  const revalidator = useRevalidator()

  // Today's tasks from the server, merged with the ones saved by earlier visits.
  useEffect(() => {
    const controller = new AbortController()
    const load = (fresh: ClientTask[]) => {
      setTasks((current) => mergeTasks(mergeTasks(readSavedTasks(localStorage, userId), current), fresh))
      setLoaded(true)
    }
    fetch('/api/async-image/tasks/today', { signal: controller.signal })
      .then((response) => (response.ok ? response.json() : { tasks: [] }))
      .then((body: { tasks: ClientTask[] }) => load(body.tasks))
      .catch(() => {
        if (!controller.signal.aborted) load([]) // offline: the saved tasks still show
      })
    return () => controller.abort()
  }, [userId])

  useEffect(() => {
    if (loaded) saveTasks(localStorage, userId, tasks)
  }, [loaded, userId, tasks])

  useEffect(() => {
    const onSubmitted = (event: Event) => {
      // The stream may have brought the task already: what it said of its state is newer.
      const submitted = taskFromSubmission((event as CustomEvent<SubmittedTask>).detail)
      setTasks((current) => mergeTasks([submitted], current))
      setOpen(true)
    }
    window.addEventListener(TASK_SUBMITTED_EVENT, onSubmitted)
    return () => window.removeEventListener(TASK_SUBMITTED_EVENT, onSubmitted)
  }, [])

  const active = tasks.filter(isActive)
  const activeKey = active.map((task) => `${task.type}:${task.id}`).join(',')
  const notifications = useDoneNotifications()
  // The poller and the stream read the latest of these without restarting.
  const latest = useRef({ tasks, active, revalidate: revalidator.revalidate, notifyEnded: notifications.notifyEnded })
  useEffect(() => {
    latest.current = { tasks, active, revalidate: revalidator.revalidate, notifyEnded: notifications.notifyEnded }
  })

  /** Newer states of tasks, from the stream or a poll: shown, passed on to the page, and announced. */
  const applyFresh = useCallback((fresh: ClientTask[]) => {
    const ended = endedTasks(latest.current.tasks, fresh)
    // Seen at once, before React renders again: the same change arriving twice ends a task once.
    latest.current.tasks = mergeTasks(latest.current.tasks, fresh)
    setTasks((current) => mergeTasks(current, fresh))
    for (const task of fresh) window.dispatchEvent(new CustomEvent(TASK_UPDATED_EVENT, { detail: task }))
    if (ended.length > 0) {
      latest.current.notifyEnded(ended)
      setTimeout(() => latest.current.revalidate(), USER_REFRESH_DELAY_MS) // the credits shown (a refund)
    }
  }, [])

  // A revoked session: the loaders, asked again, sign this tab out (or send it to /login).
  const live = useTaskStream(
    userId,
    (task) => applyFresh([task]),
    () => latest.current.revalidate(),
  )

  useEffect(() => {
    if (!activeKey || live) return
    let polling = false
    const poll = async () => {
      if (polling) return
      polling = true
      try {
        const polled = latest.current.active
        const answers = await Promise.all(polled.map(readTask))
        const fresh = answers.filter((task): task is ClientTask => task !== null && task !== 'gone')
        const gone = polled.filter((_, index) => answers[index] === 'gone').map((task) => task.id)
        if (gone.length > 0) setTasks((current) => current.filter((task) => !gone.includes(task.id)))
        applyFresh(fresh)
      } finally {
        polling = false
      }
    }
    const timer = setInterval(poll, POLL_INTERVAL_MS)
    return () => clearInterval(timer)
  }, [activeKey, live, applyFresh])

  return (
    <>
      <button
        type="button"
        className="task-fab"
        aria-expanded={open}
        aria-controls="task-sidebar"
        onClick={() => setOpen((value) => !value)}
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
          <button type="button" className="task-sidebar-close" aria-label="Close" onClick={() => setOpen(false)}>
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

/** The task's current state; 'gone' once it no longer exists (deleted); null when the read failed. */
async function readTask(task: ClientTask): Promise<ClientTask | 'gone' | null> {
  try {
    const response = await fetch(taskUrl(task))
    if (response.status === 404) return 'gone'
    if (!response.ok) return null
    return { ...((await response.json()) as ClientTask), submittedAt: task.submittedAt }
  } catch {
    return null
  }
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
