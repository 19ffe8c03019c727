import { createHash, randomInt } from 'node:crypto'
import sharp from 'sharp'
import { withOwnDataDir, photoFile } from '#tests/helpers/generation.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { loader as listAll } from '#app/routes/api.image.all.ts'
import { action as deleteInspiration } from '#app/routes/api.image.delete.inspiration.$id.ts'
import { action as createStyle, loader as listStyles } from '#app/routes/api.image.styles.ts'
import { action as updateCase } from '#app/routes/api.image.update-case.ts'
import { loader as media } from '#app/routes/media.$.ts'
import { defaultGalleryStyles } from '../../scripts/seed/defaults.ts'
import type { TemplateJson } from '#domain/gallery/template-json.ts'
import { getStorage } from '#platform/storage.server.ts'

withOwnDataDir()
process.env.OWNER_EMAIL = 'owner@example.com'

/** A PNG of a random colour, so every upload has bytes (and keys) of its own. */
function uniquePng(width = 1200, height = 900) {
  const background = { r: randomInt(256), g: randomInt(256), b: randomInt(256) }
  return sharp({ create: { width, height, channels: 3, background } })
    .png()
    .toBuffer()
}

async function uploadTemplate(token: string | undefined, fields: Record<string, string | File>) {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  const response = await callRoute(updateCase, makeRequest('/api/image/update-case', { token, body: form }))
  return { status: response.status, body: await response.json() }
}

async function uploadPng(token: string | undefined, extra: Record<string, string> = {}, bytes?: Buffer) {
  const image = photoFile(bytes ?? (await uniquePng()), 'template.png', 'image/png')
  return uploadTemplate(token, { image, style: 'travel', templatePrompt: 'A pet on a sunny beach', ...extra })
}

function deleteRequest(id: string, token?: string) {
  return callRoute(deleteInspiration, makeRequest(`/api/image/delete/inspiration/${id}`, { method: 'DELETE', token }), {
    id,
  })
}

const keyOf = (url: string) => url.replace(/^\/media\//, '')

let admin: string
let user: string
beforeAll(async () => {
  admin = (await createTestUser({ role: 'admin' })).token
  user = (await createTestUser()).token
})

describe('GET /api/image/styles', () => {
  test('answers the gallery styles in order, publicly, without the generator styles', async () => {
    const response = await callRoute(listStyles, makeRequest('/api/image/styles'))
    expect(response.status).toBe(200)
    const { styles } = await response.json()
    expect(styles.map((style: { value: string }) => style.value)).toEqual(defaultGalleryStyles.map(([value]) => value))
    expect(styles[0]).toEqual({ value: 'random', label: 'Random' })
  })
})

describe('POST /api/image/styles', () => {
  const post = (json: unknown, token?: string) =>
    callRoute(createStyle, makeRequest('/api/image/styles', { method: 'POST', json, token }))

  test('guests get 401 and plain users 403', async () => {
    expect((await post({ value: 'noir', label: 'Noir' })).status).toBe(401)
    const forbidden = await post({ value: 'noir', label: 'Noir' }, user)
    expect(forbidden.status).toBe(403)
    expect(await forbidden.json()).toEqual({ message: 'Access denied' })
  })

  test('an admin creates a style as a lowercase slug; it is listed last', async () => {
    const response = await post({ value: 'Water Color', label: 'Watercolor' }, admin)
    expect(response.status).toBe(201)
    expect((await response.json()).style).toEqual({ value: 'water_color', label: 'Watercolor' })
    const { styles } = await (await callRoute(listStyles, makeRequest('/api/image/styles'))).json()
    expect(styles.at(-1)).toEqual({ value: 'water_color', label: 'Watercolor' })
  })

  test('the owner account and superadmins may create styles too', async () => {
    const owner = await createTestUser({ email: 'owner@example.com', emailVerified: true })
    expect((await post({ value: 'owner_pick', label: 'Owner pick' }, owner.token)).status).toBe(201)
    const superadmin = await createTestUser({ role: 'superadmin' })
    expect((await post({ value: 'super_pick', label: 'Super pick' }, superadmin.token)).status).toBe(201)
  })

  test('a duplicate value is a 409, whatever its case', async () => {
    const response = await post({ value: 'FASHION', label: 'Fashion again' }, admin)
    expect(response.status).toBe(409)
    expect(await response.json()).toEqual({ message: 'Style already exists' })
  })

  test('a missing or blank value or label is a 400 with the spec message', async () => {
    for (const body of [
      { value: 'noir' },
      { label: 'Noir' },
      { value: '  ', label: 'Noir' },
      { value: 'noir', label: '' },
    ]) {
      const response = await post(body, admin)
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({ message: 'Please enter both style value and label' })
    }
  })

  test('a value that cannot be a slug or malformed JSON is a 400, never a 500', async () => {
    expect((await post({ value: 'noir!', label: 'Noir' }, admin)).status).toBe(400)
    const malformed = makeRequest('/api/image/styles', {
      method: 'POST',
      token: admin,
      body: '{',
      headers: { 'content-type': 'application/json' },
    })
    expect((await callRoute(createStyle, malformed)).status).toBe(400)
  })
})

describe('POST /api/image/update-case', () => {
  test('guests get 401 and plain users 403', async () => {
    expect((await uploadPng(undefined)).status).toBe(401)
    expect((await uploadPng(user)).status).toBe(403)
  })

  test('stores the original and two WebP renditions under content-hashed keys, made once at upload', async () => {
    const { status, body } = await uploadPng(admin, {
      name: 'Beach day',
      prompt: 'beach portrait',
      clothingTop: 'sun hat',
      personification: 'no',
    })
    expect(status).toBe(201)
    const image: TemplateJson = body.image
    expect(image).toMatchObject({
      name: 'Beach day',
      width: 1200,
      height: 900,
      parameters: {
        style: 'travel',
        prompt: 'beach portrait',
        otherParams: {
          clothingTop: 'sun hat',
          personification: 'no',
          accessories: '',
          templatePrompt: 'A pet on a sunny beach',
        },
      },
    })
    const keyPattern = /^inspiration\/\d{4}\/\d{2}\/([0-9a-f]{64})\.(jpg|webp)$/
    const expected = { originalImageUrl: ['jpeg', 1200], thumbnailUrl: ['webp', 480], imageUrl: ['webp', 960] } as const
    for (const [field, [format, width]] of Object.entries(expected)) {
      const key = keyOf(image[field as keyof typeof expected])
      const [, hash] = keyPattern.exec(key) ?? []
      expect(hash, `${field} is content-hashed`).toBeDefined()
      const stored = await getStorage().get(key)
      const bytes = Buffer.concat(await stored!.body.toArray())
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(hash)
      const metadata = await sharp(bytes).metadata()
      expect([metadata.format, metadata.width]).toEqual([format, width])
    }
  })

  test('a stored thumbnail is served with long-lived cache headers', async () => {
    const { body } = await uploadPng(admin)
    const key = keyOf(body.image.thumbnailUrl)
    const response = await callRoute(media, makeRequest(body.image.thumbnailUrl), { '*': key })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('image/webp')
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
  })

  test('a file that is not an image is refused with a clear 400', async () => {
    const fake = new File(['this is not a picture'], 'cat.png', { type: 'image/png' })
    const { status, body } = await uploadTemplate(admin, { image: fake, style: 'travel' })
    expect(status).toBe(400)
    expect(body.message).toMatch(/Unsupported file type/)
  })

  test('a missing image, a missing style or an unknown style is a 400', async () => {
    const missingImage = await uploadTemplate(admin, { style: 'travel', templatePrompt: 'x' })
    expect(missingImage).toEqual({ status: 400, body: { message: 'Please upload an image', field: 'image' } })
    const image = photoFile(await uniquePng(40, 40), 'a.png', 'image/png')
    const missingStyle = await uploadTemplate(admin, { image })
    expect(missingStyle).toEqual({ status: 400, body: { message: 'Please choose a style', field: 'style' } })
    const unknownStyle = await uploadTemplate(admin, { image, style: 'does_not_exist' })
    expect(unknownStyle).toEqual({ status: 400, body: { message: 'Unknown style "does_not_exist"' } })
  })
})

describe('GET /api/image/all', () => {
  test('lists every inspiration image newest first, publicly', async () => {
    const first = (await uploadPng(admin, { name: 'Older' })).body.image
    const second = (await uploadPng(admin, { name: 'Newer', style: 'sports' })).body.image
    const response = await callRoute(listAll, makeRequest('/api/image/all'))
    expect(response.status).toBe(200)
    const list: TemplateJson[] = await response.json()
    const ids = list.map((image) => image._id)
    expect(ids.indexOf(second._id)).toBeLessThan(ids.indexOf(first._id))
    expect(list.find((image) => image._id === second._id)).toEqual(second)
  })
})

describe('DELETE /api/image/delete/inspiration/{id}', () => {
  test('guests get 401 and plain users 403; the image stays', async () => {
    const { image } = (await uploadPng(admin)).body
    expect((await deleteRequest(image._id)).status).toBe(401)
    expect((await deleteRequest(image._id, user)).status).toBe(403)
    expect(await getStorage().stat(keyOf(image.thumbnailUrl))).not.toBeNull()
  })

  test('an admin deletes the image and its stored files', async () => {
    const { image } = (await uploadPng(admin)).body
    const response = await deleteRequest(image._id, admin)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ message: 'Image deleted' })
    for (const url of [image.imageUrl, image.originalImageUrl, image.thumbnailUrl]) {
      expect(await getStorage().stat(keyOf(url))).toBeNull()
    }
    const list: TemplateJson[] = await (await callRoute(listAll, makeRequest('/api/image/all'))).json()
    expect(list.some((entry) => entry._id === image._id)).toBe(false)
  })

  test('files shared with another upload of the same picture are kept until the last one goes', async () => {
    const bytes = await uniquePng()
    const first = (await uploadPng(admin, {}, bytes)).body.image
    const second = (await uploadPng(admin, {}, bytes)).body.image
    expect(second.thumbnailUrl).toBe(first.thumbnailUrl)
    await deleteRequest(first._id, admin)
    expect(await getStorage().stat(keyOf(second.thumbnailUrl))).not.toBeNull()
    await deleteRequest(second._id, admin)
    expect(await getStorage().stat(keyOf(second.thumbnailUrl))).toBeNull()
  })

  test('an unknown id is a 404 and a malformed one a 400', async () => {
    const missing = await deleteRequest('6f1c1c8e-9d4e-4d39-9b43-3f1f2f0c1a11', admin)
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual({ message: 'Image not found' })
    const malformed = await deleteRequest('not-an-id', admin)
    expect(malformed.status).toBe(400)
  })
})
