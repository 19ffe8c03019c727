/**
 * The browser's one store of the signed-in user's tasks (decision 0039). It keeps today's tasks
 * (saved in localStorage, merged with the server's list), follows them over the live stream
 * (app/routes/api.tasks.events.ts), polls the active ones every 2 s while the stream is not up,
 * and tells what ended (a browser notification; the root loader read again 0.5 s later, so the
 * credits shown include a refund). The Today's Tasks sidebar, the result panels, the versions list
 * and the generator pages read it (task-store-context.tsx) and tell it what they submitted or
 * changed. Everything it needs of the browser comes in `TaskStoreEnvironment`, so the unit tests
 * run it with fakes.
 */

import type { ClientTask } from '#domain/generation/task-view.ts'
import {
  endedTasks,
  mergeTasks,
  readSavedTasks,
  saveTasks,
  taskFromSubmission,
  taskUrl,
  type SubmittedTask,
} from './task-list.ts'
import { isActive } from './task-status.ts'

export const POLL_INTERVAL_MS = 2000
const USER_REFRESH_DELAY_MS = 500
/** The live stream of the signed-in user's task changes. */
const TASK_STREAM_URL = '/api/tasks/events'
const TODAY_URL = '/api/async-image/tasks/today'

/** After the stream was refused (an error answer, e.g. a 503), another try after this long, doubling up to a minute. */
const REOPEN_MS = 5000
const MAX_REOPEN_MS = 60_000
/**
 * After a newer tab of the same user took this tab's place (the server's per-user cap), about this
 * long before this tab tries again; it polls meanwhile. Long, so that a user with more tabs than
 * the cap does not keep them taking each other's place.
 */
const SUPERSEDED_REOPEN_MS = 60_000
/** EventSource.CLOSED: the browser gave the stream up and will not reconnect by itself. */
const CLOSED = 2

/** What the store uses of an EventSource. */
export interface TaskStreamSource {
  readonly readyState: number
  onopen: ((event: Event) => void) | null
  onerror: ((event: Event) => void) | null
  addEventListener(type: 'task' | 'superseded' | 'revoked', listener: (event: MessageEvent<string>) => void): void
  close(): void
}

/** What the store needs of the browser. */
export interface TaskStoreEnvironment {
  ownerId: string
  fetch: (url: string, init?: { signal?: AbortSignal }) => Promise<Response>
  storage: Pick<Storage, 'getItem' | 'setItem'>
  /** Opens the live stream; null where the browser has no EventSource (the store then polls). */
  openStream: ((url: string) => TaskStreamSource) | null
  /** Tasks that were active and have ended (completed or failed): the browser notification. */
  onEnded: (ended: ClientTask[]) => void
  /**
   * Reads the root loader again: after a task ended (the credits shown), and when the stream says
   * the session was revoked (the loaders sign this tab out, or send it to /login).
   */
  revalidate: () => void
  random?: () => number
}

/** What the store heard of a task: its whole state (stream, poll), or what a page changed of it. */
export type HeardTask = Pick<ClientTask, 'id'> & Partial<ClientTask>

export interface TaskStoreSnapshot {
  /** Today's tasks, newest first: what the sidebar lists and localStorage keeps. */
  readonly tasks: readonly ClientTask[]
  /**
   * The newest state this tab heard of each task (stream, polls, the pages' own changes), whatever
   * its day: what a page overlays on the task it shows. Saved tasks of earlier visits are not in it.
   */
  readonly heard: ReadonlyMap<string, HeardTask>
  /** Whether the live stream is up; while it is not, the active tasks are polled. */
  readonly live: boolean
  readonly sidebarOpen: boolean
}

export type TaskStore = ReturnType<typeof createTaskStore>

export function createTaskStore(environment: TaskStoreEnvironment) {
  const { ownerId, storage } = environment
  const random = environment.random ?? Math.random
  let snapshot: TaskStoreSnapshot = { tasks: [], heard: new Map(), live: false, sidebarOpen: false }
  const listeners = new Set<() => void>()
  /** Whether the server's list of today's tasks came (or could not come): only then is the list saved. */
  let loaded = false
  let started = false
  const timers = new Set<ReturnType<typeof setTimeout>>()
  let pollTimer: ReturnType<typeof setInterval> | undefined
  let polling = false
  let source: TaskStreamSource | null = null
  const today = new AbortController()

  function update(change: Partial<TaskStoreSnapshot>) {
    const keys = Object.keys(change) as (keyof TaskStoreSnapshot)[]
    if (keys.every((key) => change[key] === snapshot[key])) return
    const tasksChanged = change.tasks !== undefined && change.tasks !== snapshot.tasks
    snapshot = { ...snapshot, ...change }
    if (tasksChanged && loaded) saveTasks(storage, ownerId, snapshot.tasks)
    if (started) followActiveTasks()
    for (const listener of listeners) listener()
  }

  function later(run: () => void, ms: number) {
    const timer = setTimeout(() => {
      timers.delete(timer)
      run()
    }, ms)
    timers.add(timer)
  }

  /** Today's tasks from the server, merged with the ones saved by earlier visits. */
  function loadToday() {
    const load = (fresh: ClientTask[]) => {
      loaded = true
      update({ tasks: mergeTasks(mergeTasks(readSavedTasks(storage, ownerId), snapshot.tasks), fresh) })
    }
    environment
      .fetch(TODAY_URL, { signal: today.signal })
      .then((response) => (response.ok ? response.json() : { tasks: [] }))
      .then((body: { tasks: ClientTask[] }) => load(body.tasks))
      .catch(() => {
        if (!today.signal.aborted) load([]) // offline: the saved tasks still show
      })
  }

  /**
   * Newer states of tasks, from the stream or a poll: listed, heard by the pages, and announced
   * when they end. A state that would start an ended task again is older than the one known (a
   * poll answered after the stream brought the end): it is dropped.
   */
  function applyFresh(states: readonly ClientTask[]) {
    const fresh = states.filter(
      (task) => !endsBefore(snapshot.heard.get(task.id)?.status ?? findTask(task.id)?.status, task),
    )
    if (fresh.length === 0) return
    const ended = endedTasks(snapshot.tasks, fresh)
    const heard = new Map(snapshot.heard)
    for (const task of fresh) heard.set(task.id, { ...heard.get(task.id), ...task })
    update({ tasks: mergeTasks(snapshot.tasks, fresh), heard })
    if (ended.length > 0) {
      environment.onEnded(ended)
      later(() => environment.revalidate(), USER_REFRESH_DELAY_MS) // the credits shown (a refund)
    }
  }

  const findTask = (id: string) => snapshot.tasks.find((task) => task.id === id)

  /** Polls the active tasks every 2 s while the stream is not up, and only while there are some. */
  function followActiveTasks() {
    const shouldPoll = !snapshot.live && snapshot.tasks.some(isActive)
    if (shouldPoll && pollTimer === undefined) pollTimer = setInterval(() => void poll(), POLL_INTERVAL_MS)
    if (!shouldPoll && pollTimer !== undefined) {
      clearInterval(pollTimer)
      pollTimer = undefined
    }
  }

  async function poll() {
    if (polling) return
    polling = true
    try {
      const polled = snapshot.tasks.filter(isActive)
      const answers = await Promise.all(polled.map(readTask))
      if (!started) return
      const gone = polled.filter((_, index) => answers[index] === 'gone').map((task) => task.id)
      if (gone.length > 0) update({ tasks: snapshot.tasks.filter((task) => !gone.includes(task.id)) })
      applyFresh(answers.filter((task): task is ClientTask => task !== null && task !== 'gone'))
    } finally {
      polling = false
    }
  }

  /** The task's current state; 'gone' once it no longer exists (deleted); null when the read failed. */
  async function readTask(task: ClientTask): Promise<ClientTask | 'gone' | null> {
    try {
      const response = await environment.fetch(taskUrl(task))
      if (response.status === 404) return 'gone'
      if (!response.ok) return null
      return { ...((await response.json()) as ClientTask), submittedAt: task.submittedAt }
    } catch {
      return null
    }
  }

  /**
   * Opens the stream. The browser reconnects by itself after a drop, sending Last-Event-ID; a
   * refused or superseded stream is tried again later, at a random moment so that tabs do not come
   * back together. A stream whose session was revoked (signed out elsewhere, password changed,
   * banned, deleted) is never opened again with it.
   */
  function openStream(delayMs = REOPEN_MS) {
    if (!environment.openStream) return
    const stream = environment.openStream(TASK_STREAM_URL)
    source = stream
    const seen = { id: Number.NEGATIVE_INFINITY, data: '' }
    const openLater = (afterMs: number, nextDelayMs: number) =>
      later(() => openStream(nextDelayMs), afterMs * (0.5 + random()))
    stream.onopen = () => {
      delayMs = REOPEN_MS
      update({ live: true })
    }
    stream.onerror = () => {
      update({ live: false })
      if (stream.readyState === CLOSED) openLater(delayMs, Math.min(delayMs * 2, MAX_REOPEN_MS))
    }
    stream.addEventListener('superseded', () => {
      stream.close()
      update({ live: false })
      openLater(SUPERSEDED_REOPEN_MS, REOPEN_MS)
    })
    stream.addEventListener('revoked', () => {
      stream.close()
      update({ live: false })
      environment.revalidate()
    })
    stream.addEventListener('task', (event) => {
      // Change numbers only grow on one stream. An event without a number of its own (a queue
      // place sent again) carries the last one, so only the same number with the same data is a
      // repeat, and a smaller number is out of order.
      const id = event.lastEventId === '' ? seen.id : Number(event.lastEventId)
      if (id < seen.id || (id === seen.id && event.data === seen.data)) return
      seen.id = id
      seen.data = event.data
      try {
        applyFresh([JSON.parse(event.data) as ClientTask])
      } catch {
        // a garbled event: the next one, or the polling, brings the task's state
      }
    })
  }

  return {
    subscribe(listener: () => void) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    getSnapshot: () => snapshot,

    /** Loads today's tasks and starts following them. */
    start() {
      if (started) return
      started = true
      loadToday()
      openStream()
      followActiveTasks()
    },

    /** Stops every read, stream and timer (another user signed in, or the page is gone). */
    stop() {
      started = false
      today.abort()
      source?.close()
      clearInterval(pollTimer)
      pollTimer = undefined
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      update({ live: false })
    },

    /**
     * A page submitted a task: it is listed and followed, and the sidebar opens. The stream may
     * have brought the task already: what it said of its state is newer.
     */
    submitted(task: SubmittedTask) {
      update({ tasks: mergeTasks([taskFromSubmission(task)], snapshot.tasks), sidebarOpen: true })
    },

    /** A page changed a task itself (its favourite): the pages showing it take the change. */
    changed(task: HeardTask) {
      const heard = new Map(snapshot.heard)
      heard.set(task.id, { ...heard.get(task.id), ...task })
      update({ heard })
    },

    setSidebarOpen(open: boolean) {
      update({ sidebarOpen: open })
    },
  }
}

/** Whether the task had ended (`known`) and `fresh` has it active: the older state of the two. */
const endsBefore = (known: ClientTask['status'] | undefined, fresh: ClientTask) =>
  known !== undefined && !isActive({ status: known }) && isActive(fresh)
