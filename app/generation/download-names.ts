import type { ClientTask } from '#domain/generation/task-view.ts'

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
