import { getDb } from '#platform/db.server.ts'
import { action as generateAction } from '#app/routes/generate.tsx'
import { action as photoCheckAction } from '#app/routes/api.photo-check.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { balanceAndLedgerSum, photoFile, submitGeneration, tasksOf, withOwnDataDir } from '#tests/helpers/generation.ts'
import { blankPhoto, drawnPetPhoto } from '#tests/helpers/pet-photos.ts'

// The offline (local) provider: the local checks alone; the vision part is reported as skipped.
const media = withOwnDataDir()

async function expectRefusedWithoutCharge(photo: Buffer, message: RegExp) {
  const { user, token } = await createTestUser({ credits: 10 })
  const before = await balanceAndLedgerSum(user.id)
  const { status, body } = await submitGeneration(token, [photoFile(photo)])
  expect(status).toBe(422)
  expect(body).toEqual({ message: expect.stringMatching(message), field: 'images' }) // beside the photo
  expect(await balanceAndLedgerSum(user.id)).toEqual(before)
  expect(await tasksOf(user.id)).toEqual([])
  const spends = await getDb()
    .selectFrom('credit_transactions')
    .select('id')
    .where('user_id', '=', user.id)
    .where('type', '=', 'spend')
    .execute()
  expect(spends).toEqual([])
}

describe('POST /api/async-image/generate checks the pet photo before charging', () => {
  test('a blank photo is refused with 422 and nothing is charged or stored', async () => {
    await expectRefusedWithoutCharge(await blankPhoto(), /^This photo looks blank/)
    await expectRefusedWithoutCharge(await blankPhoto('#050505'), /^This photo looks blank/)
    expect(media.taskFiles()).toEqual([])
  })

  test('a 300 px photo is refused: it names the 512 px minimum', async () => {
    await expectRefusedWithoutCharge(await drawnPetPhoto({ width: 400 }), /too small \(400×300 px\).*at least 512 px/)
  })

  test('a far too blurred photo is refused; a slightly soft one passes with a warning', async () => {
    await expectRefusedWithoutCharge(await drawnPetPhoto({ blur: 8 }), /^This photo is too blurred/)
    const soft = await check(await drawnPetPhoto({ blur: 4 }))
    expect(soft).toMatchObject({ ok: true, message: null, warnings: [expect.stringMatching(/a little blurred/)] })
  })

  test('a dark coat in a dim room and a soft-furred pet pass and are charged as usual', async () => {
    for (const photo of [
      await drawnPetPhoto({ coat: '#1c1a18', light: 0.45 }),
      await drawnPetPhoto({ coat: '#1c1a18', fur: 0.3, blur: 1.5, light: 0.6 }),
      await drawnPetPhoto({ fur: 0.3, blur: 1.5 }),
    ]) {
      const { user, token } = await createTestUser({ credits: 10 })
      const { status, body } = await submitGeneration(token, [photoFile(photo)])
      expect(status).toBe(200)
      expect(body).toMatchObject({ creditCost: 2, credits: 8 })
      const [task] = await tasksOf(user.id)
      // Offline nothing saw the pet: no traits are made up.
      expect(task.params).not.toHaveProperty('traits')
    }
  })
})

async function check(photo: Buffer, token?: string) {
  const owner = token ?? (await createTestUser()).token
  const form = new FormData()
  form.append('image', photoFile(photo))
  const response = await callRoute(
    photoCheckAction,
    makeRequest('/api/photo-check', { method: 'POST', token: owner, body: form }),
  )
  return { status: response.status, ...(await response.json()) }
}

describe('POST /api/photo-check (the pages check on upload)', () => {
  test('answers the verdict beside the photo; offline the vision part is reported as skipped', async () => {
    expect(await check(await drawnPetPhoto())).toEqual({
      status: 200,
      ok: true,
      message: null,
      warnings: [],
      traits: null,
      vision: 'skipped',
    })
    expect(await check(await drawnPetPhoto({ width: 800 }))).toMatchObject({
      ok: true,
      warnings: [expect.stringMatching(/rather small/)],
    })
    expect(await check(await blankPhoto())).toMatchObject({ ok: false, message: expect.stringMatching(/blank/) })
  })

  test('needs a signed-in user and an image', async () => {
    const form = new FormData()
    form.append('image', photoFile(await drawnPetPhoto()))
    const anonymous = await callRoute(photoCheckAction, makeRequest('/api/photo-check', { method: 'POST', body: form }))
    expect(anonymous.status).toBe(401)
    const notAnImage = await check(Buffer.from('not an image at all'))
    expect(notAnImage).toMatchObject({ status: 400, message: expect.stringMatching(/Unsupported file type/) })
  })
})

describe('/generate without JavaScript', () => {
  test('a refused photo comes back as the photo field’s error, with nothing charged', async () => {
    const { user, token } = await createTestUser({ credits: 10 })
    const form = new FormData()
    form.append('images', photoFile(await drawnPetPhoto({ width: 400 })))
    form.append('style', 'general')
    const response = await callRoute(generateAction, makeRequest('/generate', { method: 'POST', token, body: form }))
    expect(response.status).toBe(422)
    expect((await response.json()).result.error.images).toEqual([expect.stringMatching(/too small/)])
    expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 10, ledgerSum: 10 })
  })
})

describe("/generate's action, sent by the page's script (one submission path with and without JavaScript)", () => {
  const scriptForm = async (photo: Buffer) => {
    const form = new FormData()
    form.append('images', photoFile(photo))
    form.append('style', 'general')
    form.append('inPage', '1')
    return form
  }

  test('a refused photo comes back as the photo field’s error, as without JavaScript', async () => {
    const { user, token } = await createTestUser({ credits: 10 })
    const body = await scriptForm(await drawnPetPhoto({ width: 400 }))
    const response = await callRoute(generateAction, makeRequest('/generate', { method: 'POST', token, body }))
    expect(response.status).toBe(422)
    expect((await response.json()).result.error.images).toEqual([expect.stringMatching(/too small/)])
    expect(await balanceAndLedgerSum(user.id)).toEqual({ balance: 10, ledgerSum: 10 })
  })

  test('an accepted one answers the new task’s id instead of a redirect', async () => {
    const { user, token } = await createTestUser({ credits: 10 })
    const body = await scriptForm(await drawnPetPhoto())
    const response = await callRoute(generateAction, makeRequest('/generate', { method: 'POST', token, body }))
    expect(response.status).toBe(200)
    const [task] = await tasksOf(user.id)
    expect(await response.json()).toEqual({ taskId: task!.id })
  })
})

test('an invalid form over /api names the field it is about', async () => {
  const { token } = await createTestUser({ credits: 10 })
  expect(await submitGeneration(token, [])).toEqual({
    status: 400,
    body: { message: 'Please upload a pet photo first', field: 'images' },
  })
})
