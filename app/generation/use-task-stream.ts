import { useEffect, useRef, useState } from 'react'
import type { ClientTask } from '#app/generation/task-client.ts'

/** The live stream of the signed-in user's task changes (app/routes/api.tasks.events.ts). */
const TASK_STREAM_URL = '/api/tasks/events'

/** After the stream was refused (an error answer, e.g. a 503), another try after this long, doubling up to a minute. */
const REOPEN_MS = 5000
const MAX_REOPEN_MS = 60_000
/**
 * After a newer tab of the same user took this tab's place (the server's per-user cap), about this
 * long before this tab tries again; it polls meanwhile. Long, so that a user with more tabs than
 * the cap does not keep them taking each other's place.
 */
const SUPERSEDED_REOPEN_MS = 60_000

/**
 * Opens one EventSource for the tab and hands every task it receives to `onTask`. Answers whether
 * the stream is up: while it is not (never opened, refused, or reconnecting after a drop), the
 * caller polls instead. The browser reconnects by itself after a drop, sending Last-Event-ID; a
 * refused or superseded stream is tried again later, at a random moment so that tabs do not come
 * back together. A stream whose session was revoked (signed out elsewhere, password changed,
 * banned, deleted) is never opened again with it: `onRevoked` lets the page learn who is signed in.
 */
export function useTaskStream(userId: string, onTask: (task: ClientTask) => void, onRevoked: () => void) {
  const [live, setLive] = useState(false)
  const latest = useRef({ onTask, onRevoked })
  useEffect(() => {
    latest.current = { onTask, onRevoked }
  })

  useEffect(() => {
    if (typeof EventSource === 'undefined') return
    let source: EventSource
    let reopen: ReturnType<typeof setTimeout> | undefined
    let delayMs = REOPEN_MS
    const open = () => {
      source = new EventSource(TASK_STREAM_URL)
      source.onopen = () => {
        delayMs = REOPEN_MS
        setLive(true)
      }
      const openLater = (afterMs: number) => {
        reopen = setTimeout(open, afterMs * (0.5 + Math.random()))
      }
      source.onerror = () => {
        setLive(false)
        if (source.readyState !== EventSource.CLOSED) return
        openLater(delayMs)
        delayMs = Math.min(delayMs * 2, MAX_REOPEN_MS)
      }
      source.addEventListener('superseded', () => {
        source.close()
        setLive(false)
        openLater(SUPERSEDED_REOPEN_MS)
      })
      source.addEventListener('revoked', () => {
        source.close()
        setLive(false)
        latest.current.onRevoked()
      })
      source.addEventListener('task', (event) => {
        try {
          latest.current.onTask(JSON.parse((event as MessageEvent<string>).data) as ClientTask)
        } catch {
          // a garbled event: the next one, or the polling, brings the task's state
        }
      })
    }
    open()
    return () => {
      clearTimeout(reopen)
      source.close()
      setLive(false)
    }
  }, [userId])

  return live
}
