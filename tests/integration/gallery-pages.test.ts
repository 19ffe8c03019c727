import sharp from 'sharp'
import { createTemplate } from '#domain/gallery/templates.server.ts'
import { action as galleryAction, loader as galleryLoader } from '#app/routes/_index.tsx'
import { action as templateUploadAction, loader as templateUploadLoader } from '#app/routes/update-case.tsx'
import { getDb } from '#platform/db.server.ts'
import { getStorage } from '#platform/storage.server.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { photoFile, withOwnDataDir } from '#tests/helpers/generation.ts'

withOwnDataDir()

let admin: string
let user: string
beforeAll(async () => {
  admin = (await createTestUser({ role: 'admin' })).token
  user = (await createTestUser()).token
})

const png = (r: number) =>
  sharp({ create: { width: 300, height: 400, channels: 3, background: { r, g: 90, b: 60 } } })
    .png()
    .toBuffer()

function postForm(path: string, fields: Record<string, string | File>, token?: string) {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  return makeRequest(path, { method: 'POST', token, body: form })
}

describe('/update-case', () => {
  test('guests are sent to /login and plain users get a 403 (the page shows Access Denied)', async () => {
    const guest = await callRoute(templateUploadLoader, makeRequest('/update-case'))
    expect(guest.status).toBe(302)
    expect(guest.headers.get('location')).toMatch(/^\/login/)
    const plain = await callRoute(templateUploadLoader, makeRequest('/update-case', { token: user }))
    expect(plain.status).toBe(403)
    const posted = await callRoute(
      templateUploadAction,
      postForm('/update-case', { intent: 'style', value: 'x', label: 'X' }, user),
    )
    expect(posted.status).toBe(403)
  })

  test('admins see the gallery styles', async () => {
    const response = await callRoute(templateUploadLoader, makeRequest('/update-case', { token: admin }))
    expect(response.status).toBe(200)
    const { styles } = await response.json()
    expect(styles).toContainEqual({ value: 'oil_painting', label: 'Oil Painting' })
  })

  test('the template form without an image answers the field error', async () => {
    const response = await callRoute(
      templateUploadAction,
      postForm('/update-case', { intent: 'template', image: new File([], ''), style: 'travel' }, admin),
    )
    expect(response.status).toBe(400)
    const { result, form } = await response.json()
    expect(form).toBe('template')
    expect(result.error.image).toEqual(['Please upload an image'])
  })

  test('the template form stores the upload; a non-image is a form error', async () => {
    const image = photoFile(await png(11), 'case.png', 'image/png')
    const fields = { intent: 'template', image, style: 'festival', templatePrompt: 'Party time', name: 'Party' }
    const response = await callRoute(templateUploadAction, postForm('/update-case', fields, admin))
    expect(response.status).toBe(200)
    expect((await response.json()).message).toBe('Template "Party" uploaded successfully.')
    const row = await getDb().selectFrom('templates').selectAll().where('name', '=', 'Party').executeTakeFirst()
    expect(row).toMatchObject({ style: 'festival', template_prompt: 'Party time', width: 300, height: 400 })

    const text = new File(['plain text'], 'case.png', { type: 'image/png' })
    const refused = await callRoute(templateUploadAction, postForm('/update-case', { ...fields, image: text }, admin))
    expect(refused.status).toBe(400)
    expect((await refused.json()).result.error[''][0]).toMatch(/Unsupported file type/)
  })

  test('the style form creates a style, and answers a duplicate or a missing label as form errors', async () => {
    const created = await callRoute(
      templateUploadAction,
      postForm('/update-case', { intent: 'style', value: 'retro', label: 'Retro' }, admin),
    )
    expect(created.status).toBe(200)
    expect((await created.json()).message).toBe('Style "Retro" (retro) created.')

    const duplicate = await callRoute(
      templateUploadAction,
      postForm('/update-case', { intent: 'style', value: 'retro', label: 'Retro 2' }, admin),
    )
    expect(duplicate.status).toBe(409)
    expect((await duplicate.json()).result.error['']).toEqual(['Style already exists'])

    const noLabel = await callRoute(
      templateUploadAction,
      postForm('/update-case', { intent: 'style', value: 'neon' }, admin),
    )
    expect(noLabel.status).toBe(400)
    expect((await noLabel.json()).result.error.label).toEqual(['Please enter both style value and label'])
  })
})

describe('the gallery page', () => {
  async function storedTemplate(name: string) {
    return createTemplate(getDb(), getStorage(), {
      image: await png(name.length * 20),
      style: 'portrait',
      name,
      prompt: '',
      templatePrompt: 'A portrait',
      otherParams: {},
      createdBy: null,
    })
  }

  test('the loader answers the styles and the images, with the prompts for a signed-in viewer only', async () => {
    const image = await storedTemplate('Listed')
    const { _id, imageUrl, thumbnailUrl, width, height, name, parameters } = image
    const card = { _id, imageUrl, thumbnailUrl, width, height, name }
    const data = await (await callRoute(galleryLoader, makeRequest('/'))).json()
    expect(data.styles[0]).toEqual({ value: 'random', label: 'Random' })
    expect(data.images[0]).toEqual({ ...card, parameters: { style: parameters.style } })
    const signedIn = await (await callRoute(galleryLoader, makeRequest('/', { token: user }))).json()
    expect(signedIn.images[0]).toEqual({ ...card, parameters })
    expect(parameters.otherParams.templatePrompt).toBe('A portrait')
  })

  test('an admin deletes from the page and returns to the same filter; others cannot', async () => {
    const image = await storedTemplate('Doomed')
    const asUser = await callRoute(galleryAction, postForm('/?index&style=portrait', { id: image._id }, user))
    expect(asUser.status).toBe(403)

    const response = await callRoute(galleryAction, postForm('/?index&style=portrait', { id: image._id }, admin))
    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toBe('/?style=portrait')
    const again = await callRoute(galleryAction, postForm('/?index', { id: image._id }, admin))
    expect(again.status).toBe(404)
    expect(await again.json()).toEqual({ message: 'Image not found' })
  })
})
