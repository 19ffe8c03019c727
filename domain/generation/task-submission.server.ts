import { randomUUID } from 'node:crypto'
import type { TaskKind, TaskSource, User } from '#platform/db-schema.ts'
import type { DB, Tx } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { enqueueJob } from '#platform/jobs.server.ts'
import { getMetrics } from '#platform/metrics.server.ts'
import { getStorage, mediaKey } from '#platform/storage.server.ts'
import { recordImageGeneration } from '#domain/analytics/events.server.ts'
import { spendCredits } from '#domain/credits/credits.server.ts'
import { getSystemConfig, type SystemSettings } from '#domain/credits/system-config.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { normalizeUploadedFile, type EncodedImage } from '#domain/media/images.server.ts'
import { requireModeratedInputs } from '#domain/moderation/moderate-inputs.server.ts'
import { requirePetPhoto } from '#domain/photo-check/check-pet-photo.server.ts'
import { petGenerationInputs } from '#domain/pets/pets.server.ts'
import { generationMode, imageRunCost, type ImageGenerationForm } from './image-generation-form.ts'
import { pickGuided } from './guided-fields.ts'
import type { ImageTaskParams } from './image-task-params.ts'
import { qualityLabels, videoCost, type VideoGenerationForm } from './video-generation-form.ts'
import type { VideoTaskParams } from './video-task-params.ts'

/**
 * The paid submission of a generation task (images and videos alike): the row, the debit and the
 * job in one transaction. The worker then moves it (task-states.server.ts); routes read it
 * (user-tasks.server.ts).
 */

/** One try plus three retries with graphile-worker's exponential backoff (about 3 s, 7 s, 20 s). */
const GENERATION_MAX_ATTEMPTS = 4

const jobFor = { image: 'generate_image', video: 'generate_video' } as const satisfies Record<TaskKind, string>
const kindNames: Record<TaskKind, string> = { image: 'an image', video: 'a video' }

export interface NewTask {
  /** Chosen by submitPaidTask, so uploads can be stored under the task before its row exists. */
  id: string
  userId: string
  kind: TaskKind
  source: TaskSource
  params: Record<string, unknown>
  inputKeys: string[]
  provider: string
  /** The price, read from the system config inside the paying transaction. */
  cost: (settings: SystemSettings, tx: Tx) => number | Promise<number>
  /** The ledger line, e.g. 'Image generation'; may depend on the price (a free likeness fix). */
  description: string | ((cost: number) => string)
  /** A re-roll's or a likeness fix's parent task and the paid run its family started with. */
  family?: { parentTaskId: string; rootTaskId: string }
  /** Runs in the transaction once the task is paid for; may move its job up the queue. */
  beforeQueue?: (tx: Tx) => Promise<{ runAt?: Date }>
  /** How many versions the run makes (1 for videos); `cost` is the price of all of them. */
  variants?: number
  /** Params that depend on the prices read in the paying transaction (HD's refundable difference). */
  pricedParams?: (settings: SystemSettings) => Record<string, unknown>
}

/**
 * One transaction: the task row, the debit with its 'spend' ledger line, and the job. Too few
 * credits: 402 with needPurchase; too many of the user's tasks queued or running: 429. Either way
 * nothing is written.
 */
export async function createPaidTask(db: DB, task: NewTask) {
  const created = await db.transaction().execute(async (tx) => {
    const settings = await getSystemConfig(tx)
    const cost = await task.cost(settings, tx)
    await tx
      .insertInto('generation_tasks')
      .values({
        id: task.id,
        user_id: task.userId,
        kind: task.kind,
        source: task.source,
        params: JSON.stringify({ ...task.params, ...task.pricedParams?.(settings) }),
        input_keys: task.inputKeys,
        credit_cost: cost,
        variants: task.variants ?? 1,
        provider: task.provider,
        result_key: null,
        error: null,
        started_at: null,
        finished_at: null,
        expires_at: null,
        parent_task_id: task.family?.parentTaskId ?? null,
        family_root_id: task.family?.rootTaskId ?? null,
      })
      .execute()
    const description = typeof task.description === 'string' ? task.description : task.description(cost)
    const paid = await spendCredits(tx, { userId: task.userId, cost, description, taskId: task.id })
    if (!paid) {
      throw new HttpError(402, `You need at least ${cost} credits to generate ${kindNames[task.kind]}`, {
        extra: { needPurchase: true },
      })
    }
    await refuseBeyondActiveLimit(tx, task.userId, getEnv().MAX_ACTIVE_TASKS_PER_USER)
    const placement = (await task.beforeQueue?.(tx)) ?? {}
    await enqueueJob(
      tx,
      task.source === 'upscale' ? 'upscale_image' : jobFor[task.kind],
      { taskId: task.id },
      { maxAttempts: GENERATION_MAX_ATTEMPTS, jobKey: task.id, runAt: placement.runAt },
    )
    const { credits } = await tx
      .selectFrom('users')
      .select('credits')
      .where('id', '=', task.userId)
      .executeTakeFirstOrThrow()
    return { taskId: task.id, cost, credits }
  })
  getMetrics().tasksSubmitted.inc({ kind: task.kind })
  return created
}

/**
 * Fairness: one user's burst cannot fill every worker's lanes. Called after the debit, whose UPDATE
 * locks the user's row: two submissions of the same user count one after the other, the new task
 * included. Throwing rolls the debit back.
 */
async function refuseBeyondActiveLimit(tx: Tx, userId: string, limit: number) {
  const { active } = await tx
    .selectFrom('generation_tasks')
    .select((eb) => eb.fn.countAll<number>().as('active'))
    .where('user_id', '=', userId)
    .where('status', 'in', ['queued', 'processing'])
    .executeTakeFirstOrThrow()
  if (Number(active) > limit) {
    throw new HttpError(
      429,
      `You already have ${limit} generations in progress. Please wait until one of them finishes.`,
    )
  }
}

type InputImage = Pick<EncodedImage, 'bytes' | 'mimeType' | 'ext'>

/**
 * Sniffs and re-encodes the uploads one after the other, stores them under the new task's own
 * prefix (after `checked`, images already checked, such as a saved pet's photos), then pays for and
 * queues the task in one transaction. Any failure (a bad file, too few credits, storage trouble)
 * deletes what was stored, so a refused submission leaves no file behind.
 */
async function submitPaidTask(
  db: DB,
  task: Omit<NewTask, 'id' | 'inputKeys'>,
  files: File[],
  {
    petPhoto = false,
    checked = [],
    typed,
  }: {
    /** The first file is the pet photo: checked (domain/photo-check/) before anything is stored or charged. */
    petPhoto?: boolean
    /** Images already checked (a saved pet's photos), stored first. */
    checked?: InputImage[]
    /** The free text the user typed, moderated with the uploads (domain/moderation/) before any cost. */
    typed: string
  },
) {
  const uploads: InputImage[] = [...checked]
  let firstBytes: Buffer | undefined
  for (const file of files) {
    const { original, ...image } = await normalizeUploadedFile(file)
    firstBytes ??= original
    uploads.push(image)
  }
  // After the uploads were sniffed (a file that is no image is refused as such), before any cost:
  // the photo check and moderation, side by side (each a remote call of its own).
  const [check] = await Promise.all([
    petPhoto && firstBytes ? requirePetPhoto(db, firstBytes) : undefined,
    requireModeratedInputs({ text: typed, photos: uploads.map((upload) => upload.bytes) }),
  ])
  if (check?.traits) task = { ...task, params: { ...task.params, traits: check.traits } }

  const id = randomUUID()
  const storage = getStorage()
  const stored: string[] = []
  try {
    // Keys under the task's own prefix: deleting them can never touch another task's files.
    for (const upload of uploads) {
      const key = mediaKey(`tasks/${id}`, upload.bytes, upload.ext)
      await storage.put(key, upload.bytes, upload.mimeType)
      stored.push(key)
    }
    return await createPaidTask(db, { ...task, id, inputKeys: stored })
  } catch (error) {
    await storage.deleteMany(stored)
    throw error
  }
}

/**
 * Pays for and queues an image task from a validated form (see submitPaidTask: the uploads are
 * sniffed, the pet photo checked, stored and, should the submission fail, deleted again), and
 * counts it for analytics. The traits the check saw go on the params, for the prompt.
 */
export async function submitImageGeneration(
  db: DB,
  user: Pick<User, 'id'>,
  form: ImageGenerationForm,
  /** Who asked, for the analytics (platform/client-address.server.ts). */
  clientAddress: string,
) {
  const mode = generationMode(form)
  // A saved pet's photos (copied under the task, which owns its files) stand for the pet photo.
  const pet = form.petId ? await petGenerationInputs(db, user.id, form.petId) : null
  const params: ImageTaskParams = {
    mode,
    style: form.style,
    guided: pickGuided(form),
    prompt: mode === 'guide' ? '' : form.prompt,
    templatePrompt: form.templatePrompt,
    templateId: form.template_id ?? null,
    quality: form.quality,
    ...(pet && form.petId ? { petId: form.petId, petPhotoCount: pet.images.length, traits: pet.traits } : {}),
  }
  const fromTemplate = mode === 'template'
  const task = await submitPaidTask(
    db,
    {
      userId: user.id,
      kind: 'image',
      source: fromTemplate ? 'template' : 'generate',
      params,
      provider: getEnv().IMAGE_PROVIDER,
      cost: (settings) => imageRunCost(settings, form.variants, form.quality),
      description: `${fromTemplate ? 'Image generation from a template' : 'Image generation'}${form.quality === 'hd' ? ' in HD' : ''}${versionsNote(form.variants)}`,
      variants: form.variants,
      // What each version gets back if it comes back smaller than HD: the prices of this moment.
      pricedParams: (settings) =>
        form.quality === 'hd'
          ? { hdShortfallRefund: Math.max(0, settings.hdImageCost - settings.imageGenerationCreditCost) }
          : {},
    },
    form.images,
    // With a saved pet the uploads are references; its photos were checked when saved.
    { ...(pet ? { checked: pet.images } : { petPhoto: true }), typed: typedText(params) },
  )
  recordImageGeneration(user.id, clientAddress, {
    taskId: task.taskId,
    fromTemplate,
    templateId: params.templateId,
  })
  return task
}

const versionsNote = (variants: number) => (variants > 1 ? ` (${variants} versions)` : '')

/**
 * Sniffs and re-encodes the image (image mode), then stores it, pays the configured cost of the
 * chosen quality and queues the task. Whatever the client claimed the cost to be is not read.
 */
export async function submitVideoGeneration(db: DB, user: Pick<User, 'id'>, form: VideoGenerationForm) {
  const params: VideoTaskParams = {
    mode: form.mode,
    prompt: form.prompt,
    aspectRatio: form.aspectRatio,
    resolution: form.resolution,
    quality: form.quality,
  }
  return submitPaidTask(
    db,
    {
      userId: user.id,
      kind: 'video',
      source: 'generate',
      params,
      provider: getEnv().VIDEO_PROVIDER,
      cost: (settings) => videoCost(settings, form.quality),
      description: `Video generation (${qualityLabels[form.quality]})`,
    },
    form.image ? [form.image] : [],
    { typed: form.prompt },
  )
}

/** An image run's free-text fields as one text to moderate (the personification choice is no text). */
function typedText(params: ImageTaskParams) {
  const guided = Object.entries(params.guided).filter(([field]) => field !== 'personification')
  return [params.prompt, params.templatePrompt, ...guided.map(([, text]) => text)].filter(Boolean).join('\n')
}
