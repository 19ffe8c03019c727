/**
 * Today's tasks as the browser keeps them (spec sections 3 and 4): saved in localStorage under
 * `tasks` (each with its owner's id), merged by id with fresher states, the first state of a task a
 * page has just submitted, and which tasks have just ended. The task store (task-store.ts) uses them.
 */

import type { ClientTask } from '#domain/generation/task-view.ts'
import { isActive } from './task-status.ts'

const TASKS_STORAGE_KEY = 'tasks'

/** The fresh states of tasks that were unfinished in `before` and have ended now. */
export function endedTasks(before: readonly ClientTask[], fresh: readonly ClientTask[]) {
  return fresh.filter((task) => {
    const previous = before.find((candidate) => candidate.id === task.id)
    return previous !== undefined && isActive(previous) && !isActive(task)
  })
}

function isSameLocalDay(iso: string, now: Date) {
  const date = new Date(iso)
  return (
    date.getFullYear() === now.getFullYear() && date.getMonth() === now.getMonth() && date.getDate() === now.getDate()
  )
}

/**
 * Saved tasks overlaid with fresher copies (by id), keeping only those submitted on the browser's
 * today, newest first.
 */
export function mergeTasks(saved: readonly ClientTask[], fresh: readonly ClientTask[], now = new Date()): ClientTask[] {
  const byId = new Map(saved.map((task) => [task.id, task]))
  for (const task of fresh) {
    const known = byId.get(task.id)
    // A task's description never changes; the one the page gave it (e.g. the template's name) stays.
    byId.set(task.id, { ...known, ...task, description: known?.description ?? task.description })
  }
  return [...byId.values()]
    .filter((task) => isSameLocalDay(task.submittedAt, now))
    .sort((a, b) => Date.parse(b.submittedAt) - Date.parse(a.submittedAt))
}

type SavedTask = ClientTask & { ownerId: string }

/** The user's tasks saved by an earlier visit (another account's on this browser stay hidden). */
export function readSavedTasks(storage: Pick<Storage, 'getItem'>, ownerId: string): ClientTask[] {
  try {
    const saved: unknown = JSON.parse(storage.getItem(TASKS_STORAGE_KEY) ?? '[]')
    if (!Array.isArray(saved)) return []
    return saved.filter((task): task is SavedTask => isClientTask(task) && task.ownerId === ownerId)
  } catch {
    return [] // unreadable: as if nothing were saved
  }
}

export function saveTasks(storage: Pick<Storage, 'setItem'>, ownerId: string, tasks: readonly ClientTask[]) {
  const saved: SavedTask[] = tasks.map((task) => ({ ...task, ownerId }))
  storage.setItem(TASKS_STORAGE_KEY, JSON.stringify(saved))
}

function isClientTask(value: unknown): value is ClientTask & { ownerId?: unknown } {
  const task = value as Partial<ClientTask> | null
  return typeof task?.id === 'string' && typeof task.status === 'string' && typeof task.submittedAt === 'string'
}

/** Where a task's current state is read (the polling while the live stream is down). */
export function taskUrl(task: Pick<ClientTask, 'id' | 'type'>) {
  return `/api/async-${task.type}/task/${encodeURIComponent(task.id)}`
}

/** What a page knows of a task it has just submitted; the rest comes with the first read. */
export type SubmittedTask = Pick<ClientTask, 'id' | 'type'> & Partial<Pick<ClientTask, 'source' | 'description'>>

export function taskFromSubmission(submitted: SubmittedTask, now = new Date()): ClientTask {
  const { type } = submitted
  return {
    id: submitted.id,
    type,
    status: 'queued',
    progress: 0,
    source: submitted.source ?? 'generate',
    description: submitted.description ?? (type === 'video' ? 'Generate pet video' : 'Generate pet portrait'),
    submittedAt: now.toISOString(),
    createdAt: now.toISOString(),
  }
}
