import {
  MaxPartSizeExceededError,
  unstable_createMemoryUploadHandler,
  unstable_parseMultipartFormData,
} from '@remix-run/node'
import type { UploadHandler } from '@remix-run/node'
import { badRequest, HttpError, payloadTooLarge } from '#domain/http-error.server.ts'
import { fileTooLarge, MAX_UPLOAD_BYTES } from '#domain/media/images.server.ts'
import { assertPlainText } from './text-input.ts'

export type MultipartLimits = {
  /** Per file; the default is the product's 10 MB upload limit. */
  maxFileBytes?: number
  /** Chosen files in the whole form (an empty file input does not count). */
  maxFiles?: number
  /** Per text field. */
  maxTextFieldBytes?: number
}

// Room for part headers, boundaries and a few text fields on top of the files themselves.
const formOverheadBytes = 1024 * 1024

/**
 * Parses a multipart/form-data request into a FormData (files as File objects), holding at most
 * the allowed bytes in memory: every limit is enforced while the body streams in.
 */
export async function readMultipartForm(
  request: Request,
  { maxFileBytes = MAX_UPLOAD_BYTES, maxFiles = 1, maxTextFieldBytes = 100_000 }: MultipartLimits = {},
): Promise<FormData> {
  const readFile = unstable_createMemoryUploadHandler({ maxPartSize: maxFileBytes })
  const readText = unstable_createMemoryUploadHandler({ maxPartSize: maxTextFieldBytes })
  let files = 0

  // Every part must be read by a handler: the parser would buffer a skipped part whole.
  const uploadHandler: UploadHandler = async (part) => {
    const isFile = part.filename !== undefined
    if (isFile && part.filename !== '' && ++files > maxFiles) {
      throw badRequest(maxFiles === 1 ? 'Only one file can be uploaded' : `At most ${maxFiles} files can be uploaded`)
    }
    let value: File | string | null | undefined
    try {
      value = await (isFile ? readFile(part) : readText(part))
    } catch (error) {
      if (!(error instanceof MaxPartSizeExceededError)) throw error
      throw isFile ? fileTooLarge(maxFileBytes) : payloadTooLarge(`The field "${part.name}" is too long`)
    }
    // A chosen file with no bytes (an empty input sends no file name and is "no file").
    if (isFile && part.filename !== '' && value instanceof File && value.size === 0) {
      throw badRequest(`The file in "${part.name}" is empty, please choose an image`)
    }
    return value
  }

  // The per-part limits leave part headers and the number of text fields unbounded; this caps them.
  const maxBodyBytes = maxFiles * maxFileBytes + formOverheadBytes
  const limited = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: request.body && limitBody(request.body, maxBodyBytes),
    duplex: 'half',
  } as RequestInit)

  let form: FormData
  try {
    form = await unstable_parseMultipartFormData(limited, uploadHandler)
  } catch (error) {
    if (error instanceof HttpError) throw error
    // Not multipart, no boundary, or a malformed or truncated body.
    throw badRequest('Invalid form data')
  }
  assertPlainText(form)
  return form
}

const sliceBytes = 64 * 1024

/**
 * The body handed on in small slices, only as fast as it is read, failing past maxBytes. Slicing
 * keeps one huge chunk from tripping this overall cap before the per-part limits (which have the
 * precise message) see its bytes.
 */
function limitBody(body: ReadableStream<Uint8Array>, maxBytes: number): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  let pending: Uint8Array = new Uint8Array(0)
  let total = 0
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        while (pending.byteLength === 0) {
          const { done, value } = await reader.read()
          if (done) return controller.close()
          pending = value
        }
        const slice = pending.subarray(0, sliceBytes)
        pending = pending.subarray(sliceBytes)
        total += slice.byteLength
        // The source is deliberately not cancelled: for a Node request that destroys the socket
        // before the 413 answer can be sent.
        if (total > maxBytes) return controller.error(payloadTooLarge('The form is too large'))
        controller.enqueue(slice)
      },
    },
    { highWaterMark: 0 },
  )
}
