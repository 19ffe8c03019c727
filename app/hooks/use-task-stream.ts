import { useEffect, useRef, useState } from 'react'
import type { ClientTask } from '#app/features/generation/task-client.ts'

/** The live stream of the signed-in user's task changes (app/routes/api.tasks.events.ts). */
export const TASK_STREAM_URL = '/api/tasks/events'

/**
 * Opens one EventSource for the tab and hands every task it receives to `onTask`. Answers whether
 * the stream is up: while it is not (never opened, refused, or reconnecting after a drop), the
 * caller polls instead. The browser reconnects by itself, sending Last-Event-ID.
 */
export function useTaskStream(userId: string | undefined, onTask: (task: ClientTask) => void) {
  const [live, setLive] = useState(false)
  const latest = useRef(onTask)
  useEffect(() => {
    latest.current = onTask
  })

  useEffect(() => {
    if (!userId || typeof EventSource === 'undefined') return
    const source = new EventSource(TASK_STREAM_URL)
    source.onopen = () => setLive(true)
    source.onerror = () => setLive(false)
    source.addEventListener('task', (event) => {
      try {
        latest.current(JSON.parse((event as MessageEvent<string>).data) as ClientTask)
      } catch {
        // a garbled event: the next one, or the polling, brings the task's state
      }
    })
    return () => {
      source.close()
      setLive(false)
    }
  }, [userId])

  return live
}
