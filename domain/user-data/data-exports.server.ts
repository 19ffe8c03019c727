import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { sql } from 'kysely'
import type { DB, Tx } from '#platform/db.server.ts'
import { queueEmail } from '#platform/email.server.ts'
import { enqueueJob } from '#platform/jobs.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { publicOrigin } from '#platform/public-url.server.ts'
import { getStorage } from '#platform/storage.server.ts'
import { zipChunks } from '#platform/zip-stream.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { exportEntries } from '#domain/user-data/export-contents.server.ts'

/**
 * "Download my data" (issue 32 item 6, decision 0038). A request makes a `data_exports` row and a
 * build_data_export job; the worker streams the zip (export-contents.server.ts) to a temporary file
 * and from there to storage under `exports/<id>/`, which /media never serves. The link is
 * `/exports/<id>?signature=<HMAC of the id>`: unguessable, answered `Cache-Control: private`, and
 * good for 24 hours from the request; it is emailed and shown on /profile. Expired exports go with
 * the hourly expire_media job. One export at a time, and at most EXPORTS_PER_DAY a day.
 */

const EXPORT_LIFETIME_HOURS = 24
const EXPORTS_PER_DAY = 3
const EXPORT_PREFIX = 'exports'
const PURPOSE = 'data-export'
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Keys /media must not serve: an export only goes out through its signed link. */
export const isExportKey = (key: string) => key.startsWith(`${EXPORT_PREFIX}/`)

const signature = (exportId: string) =>
  createHmac('sha256', getEnv().SESSION_SECRET).update(`${PURPOSE}:${exportId}`).digest('base64url')

/** The export's link, relative to the site. */
const exportPath = (exportId: string) => `/exports/${exportId}?signature=${signature(exportId)}`

/**
 * Starts an export for the user. The account row is locked, so two requests at once cannot both
 * pass the limits: 429 while one is being made, or after EXPORTS_PER_DAY in 24 hours.
 */
export async function requestExport(db: DB, userId: string) {
  return db.transaction().execute(async (tx) => {
    await tx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().executeTakeFirstOrThrow()
    const recent = await tx
      .selectFrom('data_exports')
      .select(['status'])
      .where('user_id', '=', userId)
      .where('created_at', '>', sql<Date>`now() - interval '24 hours'`)
      .execute()
    if (recent.some((row) => row.status === 'pending')) {
      throw new HttpError(429, 'Your data export is being made. It will be on this page and in your email soon.')
    }
    if (recent.length >= EXPORTS_PER_DAY) {
      throw new HttpError(429, `You can download your data ${EXPORTS_PER_DAY} times a day. Please try again tomorrow.`)
    }
    const row = await tx
      .insertInto('data_exports')
      .values({ user_id: userId, expires_at: sql`now() + make_interval(hours => ${EXPORT_LIFETIME_HOURS})` })
      .returning(['id', 'status', 'created_at', 'expires_at'])
      .executeTakeFirstOrThrow()
    await enqueueJob(tx, 'build_data_export', { exportId: row.id })
    return toExportView(row)
  })
}

type ExportRow = { id: string; status: 'pending' | 'ready' | 'failed'; created_at: Date; expires_at: Date }

function toExportView(row: ExportRow) {
  return {
    id: row.id,
    status: row.status,
    url: row.status === 'ready' ? exportPath(row.id) : null,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
  }
}

export type ExportView = ReturnType<typeof toExportView>

/** The user's newest export still valid (any status), for /profile; null when none. */
export async function latestExport(db: DB, userId: string): Promise<ExportView | null> {
  const row = await db
    .selectFrom('data_exports')
    .select(['id', 'status', 'created_at', 'expires_at'])
    .where('user_id', '=', userId)
    .where('expires_at', '>', new Date())
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row ? toExportView(row) : null
}

/**
 * The worker's job: writes the zip to a temporary file (one stored file at a time, never all in
 * memory), stores it, marks the export ready and queues the email in one transaction. A user
 * deleted meanwhile (the row went with them) leaves nothing behind.
 */
export async function buildExport(db: DB, exportId: string) {
  const found = await db
    .selectFrom('data_exports as e')
    .innerJoin('users as u', 'u.id', 'e.user_id')
    .select(['e.id', 'e.user_id', 'e.status', 'u.email', 'u.name'])
    .where('e.id', '=', exportId)
    .where('e.expires_at', '>', new Date())
    .executeTakeFirst()
  if (!found || found.status !== 'pending') return 'gone'
  const storage = getStorage()
  const key = `${EXPORT_PREFIX}/${exportId}/pawtrait-data-${randomBytes(8).toString('hex')}.zip`
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'pawtrait-export-'))
  try {
    const file = path.join(dir, 'export.zip')
    const zip = Readable.from(zipChunks(storage, await exportEntries(db, found.user_id)))
    await pipeline(zip, fs.createWriteStream(file))
    const { size } = await fsp.stat(file)
    await storage.putFile(key, file, size, 'application/zip')
    const ready = await db.transaction().execute(async (tx) => {
      const row = await tx
        .updateTable('data_exports')
        .set({ status: 'ready', key, size, ready_at: sql`now()` })
        .where('id', '=', exportId)
        .where('status', '=', 'pending')
        .returning(['expires_at'])
        .executeTakeFirst()
      if (row) await queueEmail(tx, readyMessage(found, exportId, row.expires_at))
      return row !== undefined
    })
    if (!ready) await storage.delete(key)
    return ready ? 'ready' : 'gone'
  } finally {
    await fsp.rm(dir, { recursive: true, force: true })
  }
}

/** The last attempt failed: the user sees it on /profile and may ask again. */
export async function failExport(db: DB, exportId: string, error: string) {
  await db
    .updateTable('data_exports')
    .set({ status: 'failed', error })
    .where('id', '=', exportId)
    .where('status', '=', 'pending')
    .execute()
}

function readyMessage(user: { email: string; name: string }, exportId: string, expiresAt: Date) {
  const link = `${publicOrigin(getEnv())}${exportPath(exportId)}`
  return {
    to: user.email,
    subject: 'Your Pawtrait data is ready to download',
    text: [
      `Hello ${user.name},`,
      '',
      'The copy of your Pawtrait data you asked for is ready:',
      link,
      '',
      `The link works until ${expiresAt.toUTCString()} and is also on your profile page.`,
      'Anyone with the link can download the file, so please do not forward this email.',
    ].join('\n'),
  }
}

export type ExportAccess = { status: 403 | 404 } | { status: 200; key: string; maxAge: number }

/** What a request for an export link gets: 403 for a wrong signature, 404 for an unknown or expired export. */
export async function exportAccess(db: DB, exportId: string, url: URL): Promise<ExportAccess> {
  if (!uuidPattern.test(exportId)) return { status: 404 }
  const expected = Buffer.from(signature(exportId))
  const given = Buffer.from(url.searchParams.get('signature') ?? '')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { status: 403 }
  const row = await db
    .selectFrom('data_exports')
    .select(['key', 'expires_at'])
    .where('id', '=', exportId)
    .where('status', '=', 'ready')
    .where('expires_at', '>', new Date())
    .executeTakeFirst()
  if (!row?.key) return { status: 404 }
  return { status: 200, key: row.key, maxAge: Math.floor((row.expires_at.getTime() - Date.now()) / 1000) }
}

/** The files of a user's exports, for deleting the account. */
export async function userExportKeys(db: DB | Tx, userId: string) {
  const rows = await db
    .selectFrom('data_exports')
    .select('key')
    .where('user_id', '=', userId)
    .where('key', 'is not', null)
    .execute()
  return rows.flatMap((row) => (row.key ? [row.key] : []))
}

/** Removes expired exports, files first (the hourly expire_media job). Answers how many went. */
export async function expireExports(db: DB, now = new Date()) {
  const expired = await db.selectFrom('data_exports').select(['id', 'key']).where('expires_at', '<=', now).execute()
  if (expired.length === 0) return 0
  await getStorage().deleteMany(expired.flatMap((row) => (row.key ? [row.key] : [])))
  await db
    .deleteFrom('data_exports')
    .where(
      'id',
      'in',
      expired.map((row) => row.id),
    )
    .execute()
  return expired.length
}
