import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { buffer as readBody } from 'node:stream/consumers'

/**
 * A local S3-compatible server for tests: path-style object PUT, GET (with a single byte range),
 * HEAD, DELETE and the multi-object delete POST /<bucket>?delete, answering errors as S3 does
 * (XML bodies such as NoSuchKey). It checks that requests are SigV4-signed, not the signature.
 */
export type FakeS3 = {
  endpoint: string
  /** bucket -> key -> object, for assertions. */
  buckets: Map<string, Map<string, StoredObject>>
  /**
   * The next `count` object PUTs answer 503 SlowDown, as S3 does when it sheds load, or the error
   * given (S3 answers 501 NotImplemented to a header it does not support).
   */
  failNextPuts(count: number, error?: { status: number; code: string; message: string }): void
  /** Object PUTs answered so far, failed ones included. */
  putRequests(): number
  /** The next `count` requests of any kind get their connection reset, unanswered. */
  resetNextRequests(count: number): void
  /**
   * Object PUTs whose key matches are stored and then left unanswered, as when the answer is lost
   * after S3 wrote the object (null: answered again). Answers how many were held so far.
   */
  holdPuts(pattern: RegExp | null): void
  heldPuts(): number
  close(): Promise<void>
}

type StoredObject = { body: Buffer; contentType: string }

/** The environment that points a process's media storage at the fake, bucket `media`. */
export const s3StorageEnv = (s3: FakeS3) => ({
  STORAGE_DRIVER: 's3',
  S3_BUCKET: 'media',
  S3_ENDPOINT: s3.endpoint,
  S3_FORCE_PATH_STYLE: 'true',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test-secret',
})

const SLOW_DOWN = { status: 503, code: 'SlowDown', message: 'Please reduce your request rate.' }

export async function startFakeS3(): Promise<FakeS3> {
  const buckets = new Map<string, Map<string, StoredObject>>()
  const bucket = (name: string) => buckets.get(name) ?? buckets.set(name, new Map()).get(name)!
  let putsToFail = 0
  let putError = SLOW_DOWN
  let puts = 0
  let toReset = 0
  let holdPattern: RegExp | null = null
  let held = 0

  const server = http.createServer(async (req, res) => {
    if (toReset > 0) {
      toReset--
      return req.socket.resetAndDestroy()
    }
    try {
      if (!req.headers.authorization?.startsWith('AWS4-HMAC-SHA256 ')) {
        return sendError(res, 403, 'AccessDenied', 'Missing AWS4-HMAC-SHA256 signature')
      }
      const url = new URL(req.url ?? '/', 'http://fake-s3')
      const [bucketName, ...keyParts] = url.pathname.slice(1).split('/').map(decodeURIComponent)
      const key = keyParts.join('/')
      const objects = bucket(bucketName)
      const body = await readBody(req)

      if (req.method === 'POST' && url.searchParams.has('delete')) {
        const keys = [...body.toString('utf8').matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => unescapeXml(m[1]))
        keys.forEach((k) => objects.delete(k))
        const quiet = /<Quiet>true<\/Quiet>/.test(body.toString('utf8'))
        const deleted = quiet ? '' : keys.map((k) => `<Deleted><Key>${escapeXml(k)}</Key></Deleted>`).join('')
        return sendXml(
          res,
          200,
          `<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${deleted}</DeleteResult>`,
        )
      }
      if (!key) return sendError(res, 400, 'InvalidRequest', 'Only object operations are supported')

      switch (req.method) {
        case 'PUT':
          puts++
          if (putsToFail > 0) {
            putsToFail--
            return sendError(res, putError.status, putError.code, putError.message)
          }
          objects.set(key, { body, contentType: req.headers['content-type'] ?? 'binary/octet-stream' })
          if (holdPattern?.test(key)) return void held++
          return res.writeHead(200, { ETag: '"fake"' }).end()
        case 'DELETE':
          objects.delete(key)
          return res.writeHead(204).end()
        case 'GET':
        case 'HEAD': {
          const object = objects.get(key)
          if (object) return sendObject(req, res, object)
          // S3 answers HEAD errors without a body.
          if (req.method === 'HEAD') return res.writeHead(404).end()
          return sendError(res, 404, 'NoSuchKey', 'The specified key does not exist.')
        }
        default:
          return sendError(res, 405, 'MethodNotAllowed', `${req.method} is not supported`)
      }
    } catch (error) {
      sendError(res, 500, 'InternalError', String(error))
    }
  })

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    endpoint: `http://127.0.0.1:${port}`,
    buckets,
    failNextPuts: (count, error = SLOW_DOWN) => {
      putsToFail = count
      putError = error
    },
    putRequests: () => puts,
    resetNextRequests: (count) => void (toReset = count),
    holdPuts: (pattern) => void (holdPattern = pattern),
    heldPuts: () => held,
    close: () =>
      new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()))
        server.closeAllConnections()
      }),
  }
}

function sendObject(req: http.IncomingMessage, res: http.ServerResponse, object: StoredObject) {
  const size = object.body.length
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '')
  const headers = { 'Content-Type': object.contentType, ETag: '"fake"', 'Accept-Ranges': 'bytes' }
  if (!range) {
    res.writeHead(200, { ...headers, 'Content-Length': size })
    return res.end(req.method === 'HEAD' ? undefined : object.body)
  }
  const start = Number(range[1])
  const end = range[2] === '' ? size - 1 : Math.min(Number(range[2]), size - 1)
  if (start >= size) return sendError(res, 416, 'InvalidRange', 'The requested range is not satisfiable')
  const part = object.body.subarray(start, end + 1)
  res.writeHead(206, { ...headers, 'Content-Length': part.length, 'Content-Range': `bytes ${start}-${end}/${size}` })
  res.end(req.method === 'HEAD' ? undefined : part)
}

function sendError(res: http.ServerResponse, status: number, code: string, message: string) {
  sendXml(res, status, `<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error>`)
}

function sendXml(res: http.ServerResponse, status: number, xml: string) {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n${xml}`
  res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) })
  res.end(body)
}

const xmlEntities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }

const escapeXml = (text: string) => text.replace(/[&<>"']/g, (char) => xmlEntities[char])

const unescapeXml = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|apos);/g, (entity) =>
    Object.keys(xmlEntities).find((char) => xmlEntities[char] === entity)!,
  )
