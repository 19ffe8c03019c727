import { randomInt, randomUUID } from 'node:crypto'
import type { TaskStatus } from '#platform/db-schema.ts'
import type { DB, Tx } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { getStorage } from '#platform/storage.server.ts'
import { recordImageGeneration } from '#domain/analytics/events.server.ts'
import { getSystemConfig } from '#domain/credits/system-config.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { imageTaskParamsSchema, petsOf, type ImageTaskParams } from './image-task-params.ts'
import { extraPetsCost } from './image-prices.ts'
import type { LikenessFix } from './likeness-fix.ts'
import { claimFreeFix } from './free-fixes.server.ts'
import { frontOfUserQueue } from './queue-placement.server.ts'
import { createPaidTask, refuseUnpayable } from './paid-task.server.ts'
import { findTaskVersion } from './task-versions.server.ts'
import { requireModeratedInputs } from '#domain/moderation/moderate-inputs.server.ts'
import { MEDIA_RETENTION_DAYS } from './task-view.ts'
import { isTaskId, requireOwnTask } from './own-task.server.ts'

/**
 * Re-rolls and likeness fixes: a new image task made from one of the user's image tasks, with the
 * same stored photo and params (a fix adds its corrections), one version, linked to its parent and
 * to the paid run its family started with (the root). Each paid run includes `freeLikenessFixes`
 * free fixes shared by its whole family (task_families); re-rolls and fixes bring none of their own.
 * Decision 0030.
 */

type Derivation = { kind: 'reroll' } | { kind: 'fix'; fix: LikenessFix }

type SourceTask = Awaited<ReturnType<typeof requireOwnTask>>

function refuseUnfinished(task: SourceTask, derivation: Derivation) {
  if (derivation.kind === 'fix' && task.status !== 'completed') {
    throw new HttpError(409, 'Only a finished portrait can be fixed')
  }
  if (task.status === 'queued' || task.status === 'processing') {
    throw new HttpError(409, 'This portrait is still being generated')
  }
}

/** 410 when the photo the task was made from is no longer stored (deleted with its task, or expired). */
async function refuseWithoutPhoto(task: SourceTask) {
  const storage = getStorage()
  const found = await Promise.all(task.input_keys.map((key) => storage.stat(key)))
  if (task.input_keys.length === 0 || found.some((info) => info === null)) {
    throw new HttpError(
      410,
      `The original photo of this portrait is no longer stored (photos are kept ${MEDIA_RETENTION_DAYS} days, and go when their portrait is deleted). Upload it again to make a new portrait.`,
    )
  }
}

function readParams(task: SourceTask): ImageTaskParams {
  const parsed = imageTaskParamsSchema.safeParse(task.params)
  if (!parsed.success) throw new HttpError(409, 'This portrait cannot be made again')
  // A fix of a fix corrects what is said now, not what was said before.
  const { likenessFix: _earlier, ...params } = parsed.data
  return params
}

/**
 * The family's row, made when its root is first re-rolled or fixed. Only a paid run that completed
 * (not refunded) comes with free fixes; the number is the setting of that moment.
 */
async function ensureFamily(tx: Tx, source: SourceTask, rootTaskId: string, freeLikenessFixes: number) {
  const paidRun = source.family_root_id === null && source.status === 'completed'
  await tx
    .insertInto('task_families')
    .values({
      root_task_id: rootTaskId,
      user_id: source.user_id,
      free_fixes_included: paidRun ? freeLikenessFixes : 0,
    })
    .onConflict((oc) => oc.column('root_task_id').doNothing())
    .execute()
}

/** The provider that made the version being fixed (the favourite), or the task's when versions did not record one. */
async function fixedVersionProvider(tx: Tx, source: SourceTask) {
  const version = await findTaskVersion(tx, source.id, source.favourite_index)
  return version?.provider ?? source.provider
}

/** Who asks: the signed-in user, and their address for the analytics (platform/client-address.server.ts). */
interface Requester {
  userId: string
  clientAddress: string
}

async function derive(db: DB, { userId, clientAddress }: Requester, taskId: string, derivation: Derivation) {
  const source = await requireOwnTask(db, userId, taskId)
  refuseUnfinished(source, derivation)
  await refuseWithoutPhoto(source)
  // The photo and the run's own text passed when it was submitted; a fix's note is new text,
  // moderated only for a user who can pay for the fix (or has a free one left).
  if (derivation.kind === 'fix') {
    const free = ((await findTaskFamily(db, userId, source.id))?.freeFixesLeft ?? 0) > 0
    await refuseUnpayable(db, {
      userId,
      kind: 'image',
      cost: (settings) => (free ? 0 : settings.imageGenerationCreditCost),
    })
    await requireModeratedInputs({ text: derivation.fix.note })
  }
  const rootTaskId = source.family_root_id ?? source.id
  // A re-roll or fix costs a standard version, so it is made at standard size (decision 0035).
  const { hdShortfallRefund: _paidForTheRun, ...parentParams } = readParams(source)
  const petCount = petsOf(parentParams).length
  if (derivation.kind === 'fix' && (derivation.fix.pet ?? 0) >= petCount) {
    throw new HttpError(
      400,
      `This portrait has ${petCount === 1 ? 'one pet' : `${petCount} pets`}: say which one is off`,
      {
        field: 'pet',
      },
    )
  }
  const params: ImageTaskParams = {
    ...parentParams,
    quality: 'standard',
    seed: randomInt(2 ** 31),
    ...(derivation.kind === 'fix' ? { likenessFix: derivation.fix } : {}),
  }
  const id = randomUUID()
  const created = await createPaidTask(db, {
    id,
    userId,
    kind: 'image',
    job: 'generate_image',
    source: source.source,
    params,
    inputKeys: source.input_keys,
    provider: getEnv().IMAGE_PROVIDER,
    family: { parentTaskId: source.id, rootTaskId },
    // A portrait of several pets costs them again (issue 41).
    cost: (settings) => settings.imageGenerationCreditCost + extraPetsCost(settings, petCount),
    description:
      derivation.kind === 'reroll'
        ? 'Image re-roll'
        : (cost) => (cost === 0 ? 'Likeness fix (free, included with the run)' : 'Likeness fix'),
    async before(tx, settings) {
      await ensureFamily(tx, source, rootTaskId, settings.freeLikenessFixes)
      if (derivation.kind !== 'fix') return {}
      const free = await claimFreeFix(tx, rootTaskId)
      await tx
        .insertInto('likeness_fix_reports')
        .values({
          task_id: source.id,
          fixed_task_id: id,
          user_id: userId,
          template_id: params.templateId,
          provider: await fixedVersionProvider(tx, source),
          reasons: derivation.fix.reasons,
          note: derivation.fix.note,
        })
        .execute()
      return { free, runAt: await frontOfUserQueue(tx, userId) }
    },
  })
  recordImageGeneration(userId, clientAddress, {
    taskId: id,
    fromTemplate: source.source === 'template',
    templateId: params.templateId,
  })
  return created
}

/** POST /api/async-image/task/{id}/reroll: the same photo and params, a new seed, one version's cost. */
export const rerollTask = (db: DB, requester: Requester, taskId: string) =>
  derive(db, requester, taskId, { kind: 'reroll' })

/** POST /api/async-image/task/{id}/fix: the same photo with targeted corrections, first in the user's queue. */
export const fixTask = (db: DB, requester: Requester, taskId: string, fix: LikenessFix) =>
  derive(db, requester, taskId, { kind: 'fix', fix })

export interface TaskFamilyView {
  parent: { id: string; status: TaskStatus } | null
  children: { id: string; status: TaskStatus; kind: 'reroll' | 'fix' | 'upscale' }[]
  /** Free likeness fixes the task's family has left. */
  freeFixesLeft: number
}

/** What the result panel shows of a task's family: its parent, its children, the free fixes left. */
export async function findTaskFamily(db: DB, userId: string, taskId: string): Promise<TaskFamilyView | null> {
  if (!isTaskId(taskId)) return null
  const task = await db
    .selectFrom('generation_tasks')
    .select(['id', 'status', 'parent_task_id', 'family_root_id'])
    .where('id', '=', taskId)
    .where('user_id', '=', userId)
    .executeTakeFirst()
  if (!task) return null
  const rootTaskId = task.family_root_id ?? task.id
  const [parent, children, family, settings] = await Promise.all([
    task.parent_task_id
      ? db
          .selectFrom('generation_tasks')
          .select(['id', 'status'])
          .where('id', '=', task.parent_task_id)
          .executeTakeFirst()
      : undefined,
    db
      .selectFrom('generation_tasks')
      .select(['id', 'status', 'params', 'source'])
      .where('parent_task_id', '=', task.id)
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .execute(),
    db.selectFrom('task_families').selectAll().where('root_task_id', '=', rootTaskId).executeTakeFirst(),
    getSystemConfig(db),
  ])
  const unclaimed = task.family_root_id === null && task.status === 'completed' ? settings.freeLikenessFixes : 0
  return {
    parent: parent ?? null,
    children: children.map((child) => ({
      id: child.id,
      status: child.status,
      kind: child.source === 'upscale' ? 'upscale' : 'likenessFix' in child.params ? 'fix' : 'reroll',
    })),
    freeFixesLeft: family ? family.free_fixes_included - family.free_fixes_used : unclaimed,
  }
}
