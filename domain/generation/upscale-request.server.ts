import { randomUUID } from 'node:crypto'
import sharp from 'sharp'
import type { DB } from '#platform/db.server.ts'
import { getMediaBytes, getStorage } from '#platform/storage.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { createPaidTask } from './paid-task.server.ts'
import { requireOwnTask } from './own-task.server.ts'
import { findTaskVersion } from './task-versions.server.ts'
import { MAX_UPSCALED_SIDE, type UpscaleParams, type UpscaleRequest } from './upscale-params.ts'

/**
 * POST /api/async-image/task/{id}/upscale: "Make it bigger" of one finished version, a new image
 * task (source 'upscale') linked to its parent, paid `upscaleCost` by the same transaction as
 * every submission and refunded by the worker when it fails. Decision 0036.
 */

async function findVersion(db: DB, userId: string, taskId: string, index: number) {
  const task = await requireOwnTask(db, userId, taskId)
  if (task.status !== 'completed') throw new HttpError(409, 'Only a finished portrait can be made bigger')
  const version = await findTaskVersion(db, task.id, index)
  if (!version) throw new HttpError(400, `This portrait has no version ${index + 1}`)
  return { task, version }
}

/** The version's size as completion recorded it, or read from the file for versions stored without one. */
async function sizeOf(version: { key: string; width: number | null; height: number | null }) {
  if (version.width && version.height) return { width: version.width, height: version.height }
  const bytes = await getMediaBytes(getStorage(), version.key)
  if (!bytes) throw new HttpError(410, 'This portrait is no longer stored, so it cannot be made bigger')
  const { width = 0, height = 0 } = await sharp(bytes).metadata()
  return { width, height }
}

export async function upscaleTask(db: DB, userId: string, taskId: string, { index, scale }: UpscaleRequest) {
  const { task, version } = await findVersion(db, userId, taskId, index)
  const { width, height } = await sizeOf(version)
  if (Math.max(width, height) * scale > MAX_UPSCALED_SIDE) {
    throw new HttpError(
      422,
      `×${scale} would make it ${width * scale}×${height * scale} px; the largest is ${MAX_UPSCALED_SIDE} px on the long side.`,
    )
  }
  const params: UpscaleParams = { upscale: { fromTaskId: task.id, index, scale } }
  return createPaidTask(db, {
    id: randomUUID(),
    userId,
    kind: 'image',
    job: 'upscale_image',
    source: 'upscale',
    params,
    inputKeys: [version.key],
    provider: 'upscaler',
    family: { parentTaskId: task.id, rootTaskId: task.family_root_id ?? task.id },
    cost: (settings) => settings.upscaleCost,
    description: `Make it bigger (×${scale})`,
  })
}
