import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { action as generate } from '#app/routes/api.async-image.generate.ts'
import { getDb } from '#platform/db.server.ts'
import { callRoute, makeRequest } from './app.ts'
import { drawnPetPhoto } from './pet-photos.ts'

/**
 * Gives this test file a media folder of its own (call before anything reads the environment), so
 * it can count the files left behind without seeing other files' uploads.
 */
export function withOwnDataDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pawtrait-generation-'))
  process.env.DATA_DIR = dir
  return {
    dir,
    /** Every stored object under media/tasks, as keys. */
    taskFiles() {
      const root = path.join(dir, 'media')
      const folder = path.join(root, 'tasks')
      if (!fs.existsSync(folder)) return []
      return (fs.readdirSync(folder, { recursive: true }) as string[])
        .map((entry) => path.join(folder, entry))
        .filter((file) => fs.statSync(file).isFile())
        .map((file) => path.relative(root, file))
    },
  }
}

/**
 * A real-looking pet photo (tests/helpers/pet-photos.ts) that passes the photo check: `color` is
 * the coat, so photos of different colours have different bytes; `size` is the width (3:4).
 */
export function petPhoto(color = '#c08040', size = 1024) {
  return drawnPetPhoto({ coat: color, width: size })
}

export function photoFile(bytes: Buffer, name = 'pet.jpg', type = 'image/jpeg') {
  return new File([new Uint8Array(bytes)], name, { type })
}

/** A form's fields: a list is sent as the field repeated, in order (`petIds`, `petPhotos`). */
type GenerationFields = Record<string, string | (string | File)[]>

/** A multipart POST /api/async-image/generate: `images` in order, then the other fields. */
function generateRequest(token: string | undefined, images: File[], fields: GenerationFields = {}) {
  const form = new FormData()
  for (const image of images) form.append('images', image)
  for (const [name, value] of Object.entries({ style: 'general', ...fields })) {
    for (const item of Array.isArray(value) ? value : [value]) form.append(name, item)
  }
  return makeRequest('/api/async-image/generate', { method: 'POST', token, body: form })
}

/** Submits through the real API route; answers the status and the JSON body. */
export async function submitGeneration(token: string | undefined, images: File[], fields: GenerationFields = {}) {
  const response = await callRoute(generate, generateRequest(token, images, fields))
  return { status: response.status, body: await response.json() }
}

/** The user's credit balance and the sum of their ledger, which must always agree. */
export async function balanceAndLedgerSum(userId: string) {
  const db = getDb()
  const user = await db.selectFrom('users').select('credits').where('id', '=', userId).executeTakeFirstOrThrow()
  const ledger = await db
    .selectFrom('credit_transactions')
    .select((eb) => eb.fn.sum<number>('amount').as('sum'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow()
  return { balance: user.credits, ledgerSum: Number(ledger.sum) }
}

/** The user's generation tasks (image and video), oldest first. */
export const tasksOf = (userId: string) =>
  getDb().selectFrom('generation_tasks').selectAll().where('user_id', '=', userId).orderBy('created_at').execute()

/** The task's row, which must exist. */
export const taskRow = (id: string) =>
  getDb().selectFrom('generation_tasks').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

export const creditsOf = async (userId: string) =>
  (await getDb().selectFrom('users').select('credits').where('id', '=', userId).executeTakeFirstOrThrow()).credits

/** The refund ('earn') ledger rows of a task. */
export const refundsOf = (taskId: string) =>
  getDb()
    .selectFrom('credit_transactions')
    .selectAll()
    .where('task_id', '=', taskId)
    .where('type', '=', 'earn')
    .execute()
