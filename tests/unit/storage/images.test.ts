import sharp from 'sharp'
import { HttpError } from '#domain/http-error.server.ts'
import { decodeImageDataUrl, makeAvatar, makeThumbnail, normalizeUploadedImage } from '#domain/media/images.server.ts'

const solid = (width: number, height: number, channels: 3 | 4 = 3) =>
  sharp({ create: { width, height, channels, background: { r: 200, g: 120, b: 40, alpha: channels === 4 ? 0.5 : 1 } } })

async function expectHttpError(promise: Promise<unknown>, status: number, message: string | RegExp) {
  const error = await promise.then(
    () => expect.fail('expected an HttpError'),
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(HttpError)
  expect(error).toMatchObject({
    status,
    message: typeof message === 'string' ? message : expect.stringMatching(message),
  })
}

describe('normalizeUploadedImage', () => {
  test('strips EXIF (GPS, camera) and applies its orientation', async () => {
    const photo = await solid(120, 80)
      .jpeg()
      .withMetadata({ orientation: 6, exif: { IFD0: { Copyright: 'secret owner', Make: 'PhoneCo' } } })
      .toBuffer()
    const input = await sharp(photo).metadata()
    expect(input.exif).toBeDefined()
    expect(input.orientation).toBe(6)

    const result = await normalizeUploadedImage(photo)
    expect(result).toMatchObject({ mimeType: 'image/jpeg', ext: 'jpg', width: 80, height: 120 })
    const output = await sharp(result.bytes).metadata()
    expect(output).toMatchObject({ format: 'jpeg', width: 80, height: 120 })
    expect(output.exif).toBeUndefined()
    expect(output.icc).toBeUndefined()
    expect(output.orientation).toBeUndefined()
    expect(result.bytes.includes('secret owner')).toBe(false)
  })

  test('re-encodes opaque PNG and WebP as JPEG', async () => {
    for (const input of [await solid(64, 48).png().toBuffer(), await solid(64, 48).webp().toBuffer()]) {
      const result = await normalizeUploadedImage(input)
      expect(result).toMatchObject({ mimeType: 'image/jpeg', ext: 'jpg', width: 64, height: 48 })
      expect((await sharp(result.bytes).metadata()).format).toBe('jpeg')
    }
  })

  test('keeps transparency as PNG', async () => {
    const result = await normalizeUploadedImage(await solid(32, 32, 4).webp().toBuffer())
    expect(result).toMatchObject({ mimeType: 'image/png', ext: 'png' })
    expect(await sharp(result.bytes).metadata()).toMatchObject({ format: 'png', hasAlpha: true })
  })

  test('takes the first frame of an animated GIF', async () => {
    const frame = (background: string) =>
      sharp({ create: { width: 20, height: 60, channels: 3, background } })
        .png()
        .toBuffer()
    const animated = await sharp([await frame('red'), await frame('blue')], { join: { animated: true } })
      .gif()
      .toBuffer()
    expect((await sharp(animated).metadata()).pages).toBe(2)

    const result = await normalizeUploadedImage(animated)
    expect(result).toMatchObject({ width: 20, height: 60 })
    const { dominant } = await sharp(result.bytes).stats()
    expect(dominant.r).toBeGreaterThan(200)
    expect(dominant.b).toBeLessThan(50)
  })

  test('accepts AVIF', async () => {
    const result = await normalizeUploadedImage(await solid(16, 16).avif().toBuffer())
    expect(result.mimeType).toBe('image/jpeg')
  })

  test('rejects a text file whatever its name claims', async () => {
    await expectHttpError(
      normalizeUploadedImage(Buffer.from('just some text, renamed to photo.jpg')),
      400,
      'Unsupported file type: please upload a JPEG, PNG, WebP or GIF image',
    )
  })

  test('rejects image formats outside the allow-list (SVG, TIFF)', async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
    )
    await expectHttpError(normalizeUploadedImage(svg), 400, /Unsupported file type/)
    await expectHttpError(normalizeUploadedImage(await solid(8, 8).tiff().toBuffer()), 400, /Unsupported file type/)
  })

  test('rejects a damaged image with 400', async () => {
    const photo = await solid(400, 400).jpeg().toBuffer()
    await expectHttpError(
      normalizeUploadedImage(photo.subarray(0, 400)),
      400,
      'The image file is damaged and could not be read',
    )
  })

  test('rejects more than 10 MB with 413', async () => {
    await expectHttpError(
      normalizeUploadedImage(Buffer.alloc(11 * 1024 * 1024)),
      413,
      'File size should not exceed 10MB',
    )
  })

  test('rejects too many pixels before decoding them', async () => {
    // 50 megapixels of one colour compress to a small PNG: a decompression bomb in miniature.
    const bomb = await solid(10_000, 5_000).png({ compressionLevel: 9 }).toBuffer()
    expect(bomb.length).toBeLessThan(1024 * 1024)
    await expectHttpError(normalizeUploadedImage(bomb), 413, 'The image is too large (max 40 megapixels)')
    await expectHttpError(
      normalizeUploadedImage(await solid(100, 100).png().toBuffer(), { maxPixels: 5_000 }),
      413,
      /too large/,
    )
  })
})

test('makeThumbnail makes a WebP no wider than asked and never enlarges', async () => {
  const photo = await solid(800, 600).jpeg().toBuffer()
  expect(await makeThumbnail(photo, 200)).toMatchObject({
    mimeType: 'image/webp',
    ext: 'webp',
    width: 200,
    height: 150,
  })
  expect(await makeThumbnail(photo, 2000)).toMatchObject({ width: 800, height: 600 })
})

describe('avatars from data URLs', () => {
  test('decodes and crops to a 256x256 WebP', async () => {
    const png = await solid(600, 300).png().toBuffer()
    const bytes = decodeImageDataUrl(`data:image/png;base64,${png.toString('base64')}`)
    expect(bytes).toEqual(png)
    const avatar = await makeAvatar(bytes)
    expect(avatar).toMatchObject({ mimeType: 'image/webp', ext: 'webp', width: 256, height: 256 })
  })

  test.each([
    ['not a data URL', 'https://example.com/cat.png'],
    ['not an image type', 'data:text/html;base64,PGgxPmhpPC9oMT4='],
    ['not base64', 'data:image/png,rawdata'],
    ['bad base64', 'data:image/png;base64,@@@@'],
    ['empty', 'data:image/png;base64,'],
  ])('rejects %s with 400', (_, dataUrl) => {
    expect(() => decodeImageDataUrl(dataUrl)).toThrow(HttpError)
    try {
      decodeImageDataUrl(dataUrl)
    } catch (error) {
      expect((error as HttpError).status).toBe(400)
    }
  })

  test('rejects an oversized payload with 413 before decoding', () => {
    const dataUrl = `data:image/jpeg;base64,${'A'.repeat(Math.ceil((11 * 1024 * 1024 * 4) / 3))}`
    expect(() => decodeImageDataUrl(dataUrl)).toThrow('File size should not exceed 10MB')
    expect(() => decodeImageDataUrl('data:image/png;base64,AAAAAAAA', 5)).toThrow(/should not exceed/)
  })

  test('a data URL that claims image/png but holds text fails in makeAvatar', async () => {
    const bytes = decodeImageDataUrl(`data:image/png;base64,${Buffer.from('hello').toString('base64')}`)
    await expectHttpError(makeAvatar(bytes), 400, /Unsupported file type/)
  })
})
