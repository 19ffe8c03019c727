import { HttpError } from '#domain/http-error.server.ts'
import { readMultipartForm } from '#app/utils/multipart.server.ts'

const MB = 1024 * 1024

const post = (body: BodyInit, headers?: HeadersInit) =>
  new Request('http://app.test/api/upload', { method: 'POST', body, headers, duplex: 'half' } as RequestInit)

function formWith(fields: Record<string, string | File | File[]>) {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) form.append(name, item)
  }
  return form
}

async function expectHttpError(promise: Promise<unknown>, status: number, message: string) {
  const error = await promise.then(
    () => expect.fail('expected an HttpError'),
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(HttpError)
  expect(error).toMatchObject({ status, message })
}

test('returns text fields and files', async () => {
  const photo = new File([Buffer.from('photo bytes')], 'cat.jpg', { type: 'image/jpeg' })
  const form = await readMultipartForm(post(formWith({ transactionId: 'tx-1', note: 'héllo', screenshot: photo })))
  expect(form.get('transactionId')).toBe('tx-1')
  expect(form.get('note')).toBe('héllo')
  const file = form.get('screenshot') as File
  expect(file.name).toBe('cat.jpg')
  expect(Buffer.from(await file.arrayBuffer()).toString()).toBe('photo bytes')
})

test('an empty file input is kept as an empty file and does not count as a file', async () => {
  // As browsers send a file input left empty (undici's FormData omits the empty filename).
  const body = [
    '--x\r\nContent-Disposition: form-data; name="screenshot"; filename=""\r\nContent-Type: application/octet-stream\r\n\r\n\r\n',
    '--x\r\nContent-Disposition: form-data; name="photo"; filename="cat.png"\r\nContent-Type: image/png\r\n\r\nx\r\n',
    '--x--\r\n',
  ].join('')
  const form = await readMultipartForm(post(body, { 'Content-Type': 'multipart/form-data; boundary=x' }), {
    maxFiles: 1,
  })
  expect(form.get('screenshot')).toBeInstanceOf(File)
  expect((form.get('screenshot') as File).size).toBe(0)
  expect((form.get('photo') as File).size).toBe(1)
})

test('several files up to maxFiles', async () => {
  const photos = Array.from({ length: 6 }, (_, i) => new File([`p${i}`], `p${i}.jpg`))
  const form = await readMultipartForm(post(formWith({ photos })), { maxFiles: 6 })
  expect(form.getAll('photos')).toHaveLength(6)
})

test('too many files is a 400', async () => {
  const photos = Array.from({ length: 3 }, (_, i) => new File([`p${i}`], `p${i}.jpg`))
  await expectHttpError(
    readMultipartForm(post(formWith({ photos })), { maxFiles: 2 }),
    400,
    'At most 2 files can be uploaded',
  )
  await expectHttpError(readMultipartForm(post(formWith({ photos }))), 400, 'Only one file can be uploaded')
})

test('a file over the limit is a 413, found while streaming rather than after buffering the body', async () => {
  const boundary = 'pawtrait-boundary'
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="photo"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
  )
  const chunk = Buffer.alloc(64 * 1024, 7)
  const endlessBytes = 1024 * MB
  let pulled = 0
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const next = pulled === 0 ? head : chunk
        pulled += next.length
        if (pulled > endlessBytes) controller.close()
        else controller.enqueue(new Uint8Array(next))
      },
    },
    { highWaterMark: 0 },
  )

  const request = post(body, { 'Content-Type': `multipart/form-data; boundary=${boundary}` })
  await expectHttpError(readMultipartForm(request), 413, 'File size should not exceed 10MB')
  expect(pulled).toBeLessThan(11 * MB)
})

test('an 11 MB file is a 413 with the product message', async () => {
  const big = new File([Buffer.alloc(11 * MB)], 'big.png', { type: 'image/png' })
  await expectHttpError(readMultipartForm(post(formWith({ photo: big }))), 413, 'File size should not exceed 10MB')
})

test('a text field over its limit is a 413', async () => {
  await expectHttpError(
    readMultipartForm(post(formWith({ prompt: 'x'.repeat(2_000) })), { maxTextFieldBytes: 1_000 }),
    413,
    'The field "prompt" is too long',
  )
})

test('many small fields cannot grow the form past its overall cap', async () => {
  const fields = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`f${i}`, 'x'.repeat(90_000)]))
  await expectHttpError(readMultipartForm(post(formWith(fields))), 413, 'The form is too large')
})

test.each([
  ['a JSON body', () => post('{"a":1}', { 'Content-Type': 'application/json' })],
  ['a url-encoded body', () => post(new URLSearchParams({ a: '1' }))],
  ['no boundary', () => post('--x\r\n', { 'Content-Type': 'multipart/form-data' })],
  [
    'no body',
    () => new Request('http://app.test/api/upload', { headers: { 'Content-Type': 'multipart/form-data; boundary=x' } }),
  ],
  [
    'a truncated body',
    () =>
      post('--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nhello', {
        'Content-Type': 'multipart/form-data; boundary=x',
      }),
  ],
  [
    'a part without Content-Disposition',
    () =>
      post('--x\r\nContent-Type: text/plain\r\n\r\nhello\r\n--x--\r\n', {
        'Content-Type': 'multipart/form-data; boundary=x',
      }),
  ],
])('%s is a 400 Invalid form data', async (_, makeRequest) => {
  await expectHttpError(readMultipartForm(makeRequest()), 400, 'Invalid form data')
})

test('a chosen file with no bytes is a 400 naming its field', async () => {
  const empty = new File([], 'empty.png', { type: 'image/png' })
  await expectHttpError(
    readMultipartForm(post(formWith({ images: empty }))),
    400,
    'The file in "images" is empty, please choose an image',
  )
})

test('a text field with a control character is a 400 naming the field', async () => {
  await expectHttpError(
    readMultipartForm(post(formWith({ transactionId: 'tx\u0000', paymentNote: 'fine' }))),
    400,
    'The field "transactionId" contains a control character, which is not allowed',
  )
})
