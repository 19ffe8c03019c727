/**
 * The browser's side of generation tasks (spec sections 3 and 4): the task shape kept in
 * localStorage under `tasks`, the status texts, merging saved and fetched tasks, and the two window
 * events pages use to talk to the Today's Tasks sidebar:
 *
 * - `pawtrait:task-submitted` (detail: SubmittedTask): a page submitted a task;
 *   the sidebar adds it, opens, and follows it. Fire it with `announceTaskSubmitted`.
 * - `pawtrait:task-updated` (detail: ClientTask): the sidebar got a newer state of a task (stream or poll).
 */

import type { ClientTask } from '#domain/generation/task-view.ts'

export type { ClientTask } from '#domain/generation/task-view.ts'
export { MEDIA_RETENTION_DAYS } from '#domain/generation/task-view.ts'

const TASKS_STORAGE_KEY = 'tasks'
export const TASK_SUBMITTED_EVENT = 'pawtrait:task-submitted'
export const TASK_UPDATED_EVENT = 'pawtrait:task-updated'
export const POLL_INTERVAL_MS = 2000
export const USER_REFRESH_DELAY_MS = 500

export const isActive = (task: Pick<ClientTask, 'status'>) => task.status === 'queued' || task.status === 'processing'

/** The fresh states of tasks that were unfinished in `before` and have ended now. */
export function endedTasks(before: ClientTask[], fresh: ClientTask[]) {
  return fresh.filter((task) => {
    const previous = before.find((candidate) => candidate.id === task.id)
    return previous !== undefined && isActive(previous) && !isActive(task)
  })
}

export function taskStatusText(task: Pick<ClientTask, 'status' | 'type' | 'queuePosition' | 'totalInQueue'>) {
  switch (task.status) {
    case 'queued':
      return task.queuePosition
        ? `In Queue ${task.queuePosition}/${task.totalInQueue ?? task.queuePosition}`
        : 'In Queue'
    case 'processing':
      return task.type === 'video' ? 'Generating Video...' : 'Generating Image...'
    case 'completed':
      return 'Completed'
    case 'failed':
      return 'Failed'
  }
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
export function mergeTasks(saved: ClientTask[], fresh: ClientTask[], now = new Date()): ClientTask[] {
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

export function saveTasks(storage: Pick<Storage, 'setItem'>, ownerId: string, tasks: ClientTask[]) {
  const saved: SavedTask[] = tasks.map((task) => ({ ...task, ownerId }))
  storage.setItem(TASKS_STORAGE_KEY, JSON.stringify(saved))
}

function isClientTask(value: unknown): value is ClientTask & { ownerId?: unknown } {
  const task = value as Partial<ClientTask> | null
  return typeof task?.id === 'string' && typeof task.status === 'string' && typeof task.submittedAt === 'string'
}

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

/** Tells the Today's Tasks sidebar about a new task: it is added and the sidebar opens. */
export function announceTaskSubmitted(task: SubmittedTask) {
  window.dispatchEvent(new CustomEvent<SubmittedTask>(TASK_SUBMITTED_EVENT, { detail: task }))
}

/**
 * File names of downloads keep the spec's prefixes (section 9: pet-portrait-…, pet-art-… for
 * template results, pet-video-…), then the saved pet's or template's name (else the task's id) and
 * the day it was made: `pet-portrait-biscuit-2026-11-26`; each version adds its number (versionName).
 */
export function downloadName(task: Pick<ClientTask, 'id' | 'type' | 'source' | 'createdAt' | 'subject'>) {
  const prefix = task.type === 'video' ? 'pet-video' : task.source === 'template' ? 'pet-art' : 'pet-portrait'
  const subject = slug(task.subject ?? '') || task.id.slice(0, 8)
  return `${prefix}-${subject}-${task.createdAt.slice(0, 10)}`
}

/** One version's name: `<name>-<n>`, counted from 1 for people. */
export const versionName = (name: string, index: number) => `${name}-${index + 1}`

/** The favourite's (or a video's) download name: an image's carries its version number. */
export function favouriteDownloadName(
  task: Pick<ClientTask, 'id' | 'type' | 'source' | 'createdAt' | 'subject' | 'favouriteIndex'>,
) {
  const name = downloadName(task)
  return task.type === 'image' ? versionName(name, task.favouriteIndex ?? 0) : name
}

/** One version's file name in a zip: `<name>-<n>.<ext>`. */
export function versionFileName(name: string, index: number, key: string) {
  return `${versionName(name, index)}.${key.split('.').pop() ?? 'png'}`
}

/** Lower-case ASCII words joined by dashes: "Mr. Biscuit!" → "mr-biscuit". */
const slug = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)

/** Where the zip of every version of a finished image task is. */
export const versionsZipUrl = (taskId: string) => `/api/async-image/task/${taskId}/zip`

/** A link that downloads the stored file under that name (see media-response.server.ts). */
export function downloadUrl(url: string, name: string) {
  return `${url}?download=${encodeURIComponent(name)}`
}
