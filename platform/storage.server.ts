import { createHash, randomUUID } from 'node:crypto'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { buffer as readStream } from 'node:stream/consumers'
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3'
import { type Env, getEnv } from './env.server.ts'
import { isNetworkFailure } from './network-errors.server.ts'

/**
 * Media objects (uploads, avatars, payment screenshots, templates, generated images and videos).
 * A key is never reused for different bytes (see mediaKey), which is what lets /media answers be
 * cached forever.
 */
export interface MediaStorage {
  put(key: string, bytes: Buffer, contentType: string): Promise<void>
  /** Stores a file from disk of that size without reading it into memory (a data export). */
  putFile(key: string, file: string, size: number, contentType: string): Promise<void>
  /** Null when the object does not exist. */
  stat(key: string): Promise<MediaInfo | null>
  /** The whole object, or only the inclusive byte range; `size` counts the bytes in `body`. */
  get(key: string, range?: ByteRange): Promise<MediaObject | null>
  /** Deleting a missing object is not an error. */
  delete(key: string): Promise<void>
  deleteMany(keys: readonly string[]): Promise<void>
}

export type MediaInfo = { contentType: string; size: number }
export type MediaObject = MediaInfo & { body: Readable }
export type ByteRange = { start: number; end: number }

const contentTypes: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  avif: 'image/avif',
  mp4: 'video/mp4',
  zip: 'application/zip',
}

// Lower-case segments without dots, then one known extension: `..`, absolute paths, backslashes,
// empty segments and unknown types cannot get through, so a key is always safe as a file path.
const keyPattern = /^(?:[a-z0-9][a-z0-9_-]{0,63}\/){0,8}[a-z0-9][a-z0-9_-]{0,127}\.([a-z0-9]+)$/

export function isValidMediaKey(key: string): boolean {
  const match = keyPattern.exec(key)
  return match !== null && Object.hasOwn(contentTypes, match[1])
}

export function assertMediaKey(key: string): void {
  if (!isValidMediaKey(key)) throw new Error(`Invalid media key: ${JSON.stringify(key)}`)
}

/** The content type a key serves with, decided by its extension. */
export function contentTypeForKey(key: string): string {
  assertMediaKey(key)
  return contentTypes[key.slice(key.lastIndexOf('.') + 1)]
}

function assertPut(key: string, contentType: string) {
  const expected = contentTypeForKey(key)
  if (contentType !== expected) {
    throw new Error(`Media key ${key} must be stored as ${expected}, not ${contentType}`)
  }
}

/** `prefix/YYYY/MM/<sha256 of bytes>.ext`: the same bytes always get the same key. */
export function mediaKey(prefix: string, bytes: Buffer, ext: string, now = new Date()): string {
  const month = String(now.getUTCMonth() + 1).padStart(2, '0')
  const hash = createHash('sha256').update(bytes).digest('hex')
  const key = `${prefix}/${now.getUTCFullYear()}/${month}/${hash}.${ext}`
  assertMediaKey(key)
  return key
}

/** Reads a whole object into memory, for the worker's inputs. */
export async function getMediaBytes(storage: MediaStorage, key: string): Promise<Buffer | null> {
  const object = await storage.get(key)
  return object && readStream(object.body)
}

export function createLocalStorage(root: string): MediaStorage {
  const fileFor = (key: string) => {
    assertMediaKey(key)
    return path.join(root, key)
  }
  const deleteFile = (key: string) => fsp.rm(fileFor(key), { force: true })

  return {
    async put(key, bytes, contentType) {
      assertPut(key, contentType)
      await writeWhole(fileFor(key), (temp) => fsp.writeFile(temp, bytes))
    },

    async putFile(key, source, _size, contentType) {
      assertPut(key, contentType)
      await writeWhole(fileFor(key), (temp) => fsp.copyFile(source, temp))
    },

    async stat(key) {
      const stats = await fsp.stat(fileFor(key)).catch(nullWhenMissing)
      return stats && { contentType: contentTypeForKey(key), size: stats.size }
    },

    async get(key, range) {
      const file = fileFor(key)
      // Open first so a missing file is a null answer rather than an error on the stream.
      const handle = await fsp.open(file, 'r').catch(nullWhenMissing)
      if (!handle) return null
      const { size } = await handle.stat()
      const body = fs.createReadStream(file, { fd: handle, start: range?.start, end: range?.end })
      const length = range ? range.end - range.start + 1 : size
      return { body, contentType: contentTypeForKey(key), size: length }
    },

    delete: deleteFile,

    async deleteMany(keys) {
      await Promise.all(keys.map(deleteFile))
    },
  }
}

/** Writes to a temporary file, then renames: readers on this or another process never see a half-written file. */
async function writeWhole(file: string, write: (temp: string) => Promise<void>) {
  await fsp.mkdir(path.dirname(file), { recursive: true })
  const temp = `${file}.${randomUUID()}.tmp`
  try {
    await write(temp)
    await fsp.rename(temp, file)
  } catch (error) {
    await fsp.rm(temp, { force: true })
    throw error
  }
}

function nullWhenMissing(error: NodeJS.ErrnoException): null {
  if (error.code === 'ENOENT') return null
  throw error
}

export type S3StorageOptions = {
  bucket: string
  endpoint?: string
  region: string
  forcePathStyle: boolean
  credentials?: { accessKeyId: string; secretAccessKey: string }
}

// DeleteObjects takes at most 1000 keys a request.
const deleteBatchSize = 1000

export function createS3Storage(options: S3StorageOptions): MediaStorage {
  const client = new S3Client({
    endpoint: options.endpoint,
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    credentials: options.credentials,
    // Newer SDKs add CRC checksums to every upload, which not every S3-compatible service accepts.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  })
  // Outermost (the initialize step): sees each call's end, after the client's own retries.
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args)
      } catch (error) {
        throw meansUnavailable(error) ? new StorageUnavailableError(error) : error
      }
    },
    { step: 'initialize', name: 'storageUnavailable' },
  )
  const Bucket = options.bucket

  return {
    async put(key, bytes, contentType) {
      assertPut(key, contentType)
      await client.send(new PutObjectCommand({ Bucket, Key: key, Body: bytes, ContentType: contentType }))
    },

    async putFile(key, file, size, contentType) {
      assertPut(key, contentType)
      // One PUT, streamed from disk; the length is given, so the SDK never buffers the body.
      const Body = fs.createReadStream(file)
      await client.send(new PutObjectCommand({ Bucket, Key: key, Body, ContentLength: size, ContentType: contentType }))
    },

    async stat(key) {
      assertMediaKey(key)
      const head = await client.send(new HeadObjectCommand({ Bucket, Key: key })).catch(nullWhenNotFound)
      return head && { contentType: contentTypeForKey(key), size: head.ContentLength ?? 0 }
    },

    async get(key, range) {
      assertMediaKey(key)
      const Range = range && `bytes=${range.start}-${range.end}`
      const object = await client.send(new GetObjectCommand({ Bucket, Key: key, Range })).catch(nullWhenNotFound)
      if (!object) return null
      // In Node the SDK's streaming body is an http.IncomingMessage.
      return { body: object.Body as Readable, contentType: contentTypeForKey(key), size: object.ContentLength ?? 0 }
    },

    async delete(key) {
      assertMediaKey(key)
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }))
    },

    async deleteMany(keys) {
      keys.forEach(assertMediaKey)
      for (let i = 0; i < keys.length; i += deleteBatchSize) {
        const Objects = keys.slice(i, i + deleteBatchSize).map((Key) => ({ Key }))
        const result = await client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects, Quiet: true } }))
        // A batch answers 200 even when some keys failed; those are listed in Errors.
        const failed = result.Errors ?? []
        if (failed.length > 0) {
          throw new Error(`Could not delete ${failed.length} media objects, first ${failed[0].Key}: ${failed[0].Code}`)
        }
      }
    },
  }
}

/**
 * S3 answered nothing (a reset, a refusal, a timeout) or only 5xx to a call, through all of the
 * client's tries: storage is briefly away, not wrong. The web answers it 503 (service-unavailable.server.ts).
 */
export class StorageUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`media storage is unavailable (${cause instanceof Error ? cause.message : String(cause)})`, { cause })
    this.name = 'StorageUnavailableError'
  }
}

/** Storage answered 500, 502, 503 or 504 through all of the client's tries, or could not be reached or timed out. */
function meansUnavailable(error: unknown) {
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode
  if (status !== undefined) return UNAVAILABLE_STATUSES.has(status)
  return isNetworkFailure(error) || (error as { name?: unknown } | null)?.name === 'TimeoutError'
}

const UNAVAILABLE_STATUSES = new Set([500, 502, 503, 504])

function nullWhenNotFound(error: { $metadata?: { httpStatusCode?: number } }): null {
  if (error.$metadata?.httpStatusCode === 404) return null
  throw error
}

/** The environment variables storage reads (env.server.ts already maps Tigris's names onto these). */
export type StorageEnv = Pick<
  Env,
  | 'STORAGE_DRIVER'
  | 'DATA_DIR'
  | 'S3_BUCKET'
  | 'S3_ENDPOINT'
  | 'S3_REGION'
  | 'S3_FORCE_PATH_STYLE'
  | 'AWS_ACCESS_KEY_ID'
  | 'AWS_SECRET_ACCESS_KEY'
>

export function createStorageFromEnv(env: StorageEnv): MediaStorage {
  if (env.STORAGE_DRIVER === 'local') return createLocalStorage(path.resolve(env.DATA_DIR, 'media'))
  const bucket = env.S3_BUCKET
  if (!bucket) throw new Error('S3_BUCKET is required for STORAGE_DRIVER=s3')
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = env
  return createS3Storage({
    bucket,
    endpoint: env.S3_ENDPOINT,
    region: env.S3_REGION,
    forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true',
    // Without explicit keys the SDK's default chain (instance roles, profiles) applies.
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
  })
}

let storage: MediaStorage | undefined

/** The process-wide storage, configured from the validated environment on first use. */
export function getStorage(): MediaStorage {
  storage ??= createStorageFromEnv(getEnv())
  return storage
}
