import { parseWithZod } from '@conform-to/zod'
import { imageGenerationSchema, petCountOf, savedPetIds } from '#domain/generation/image-generation-form.ts'
import { imageRunCost } from '#domain/generation/image-prices.ts'
import { buildImagePrompt } from '#domain/generation/prompt.ts'
import { printSafeArea } from '#domain/media/print-readiness.ts'
import { guided } from '#tests/unit/providers/image-fixtures.ts'

const ids = [
  '1b4e28ba-2fa1-41d2-883f-0016d3cca427',
  '2b4e28ba-2fa1-41d2-883f-0016d3cca427',
  '3b4e28ba-2fa1-41d2-883f-0016d3cca427',
]
const photo = () => new File([new Uint8Array(10)], 'pet.jpg', { type: 'image/jpeg' })

function parse(entries: [string, string | File][]) {
  const form = new FormData()
  form.append('style', 'general')
  for (const [name, value] of entries) form.append(name, value)
  return parseWithZod(form, { schema: imageGenerationSchema })
}

function errorsOf(entries: [string, string | File][]) {
  const submission = parse(entries)
  return submission.status === 'success' ? null : submission.error
}

test('petId is a list of one before petIds; saved pets and a photo each count the pets; both at once are refused', () => {
  const saved = parse([
    ['petId', ids[0]],
    ['petIds', ids[1]],
    ['petIds', ids[2]],
  ])
  expect(saved.status).toBe('success')
  if (saved.status !== 'success') return
  expect(savedPetIds(saved.value)).toEqual(ids)
  expect(petCountOf(saved.value)).toBe(3)
  const photos = parse([
    ['petPhotos', photo()],
    ['petPhotos', photo()],
  ])
  expect(photos.status === 'success' && petCountOf(photos.value)).toBe(2)
  expect(
    errorsOf([
      ['petIds', ids[0]],
      ['petPhotos', photo()],
    ]),
  ).toEqual({
    petPhotos: ['Choose saved pets or upload a photo for each pet, not both'],
  })
  expect(
    errorsOf([
      ['petIds', ids[0]],
      ['petIds', ids[0]],
    ]),
  ).toEqual({ petIds: ['Choose each saved pet once'] })
  expect(
    errorsOf([
      ['title', 'x'.repeat(25)],
      ['images', photo()],
    ]),
  ).toEqual({
    title: ['The title can be at most 24 characters'],
  })
})

test('a version costs the image cost plus extraPetCost for each pet beyond the first, HD included', () => {
  const prices = { imageGenerationCreditCost: 2, hdImageCost: 4, extraPetCost: 1 }
  expect(imageRunCost(prices, 1)).toBe(2)
  expect(imageRunCost(prices, 1, 'standard', 2)).toBe(3)
  expect(imageRunCost(prices, 2, 'standard', 4)).toBe(10)
  expect(imageRunCost(prices, 1, 'hd', 3)).toBe(6)
  expect(imageRunCost({ ...prices, extraPetCost: 0 }, 1, 'standard', 4)).toBe(2)
})

test('the prompt names every pet in order, says which images are whose, and asks for all of them together', () => {
  const prompt = buildImagePrompt({
    mode: 'guide',
    style: 'general',
    guided: guided({ personification: 'no', background: 'a garden' }),
    pets: [
      {
        name: 'Biscuit',
        photoCount: 2,
        traits: { species: 'dog', breed: 'beagle', colours: ['tan'], markings: ['a white blaze'] },
      },
      { photoCount: 1, traits: { species: 'cat', breed: '', colours: ['black'], markings: [] } },
      { name: 'Pip', photoCount: 1 },
    ],
  })
  expect(prompt).toContain(
    'The portrait shows these 3 pets together, each keeping its own likeness: the first, Biscuit, a dog (beagle) with tan fur; markings: a white blaze (images 1 to 2); the second, a cat with black fur (image 3); the third, Pip (image 4).',
  )
  expect(prompt).toContain('Keep every pet a natural animal (not human-like)')
  expect(prompt).toContain('All 3 pets together as the subjects, none left out')
  expect(prompt).not.toContain('One pet as the clear subject')
})

test('the print-safe area is what every standard print of the image keeps, less a trim margin', () => {
  // A square prints upright: 4×6 keeps the middle two thirds of its width; 31 px of trim on each edge.
  expect(printSafeArea(1024, 1024)).toEqual({ left: 202, top: 31, width: 620, height: 962 })
  expect(printSafeArea(4096, 4096)).toEqual({ left: 806, top: 123, width: 2484, height: 3850 })
  // Landscape prints landscape: 3:2 is 6×4 itself, and 10×8 (5:4) crops the width most.
  expect(printSafeArea(3000, 2000)).toEqual({ left: 310, top: 60, width: 2380, height: 1880 })
})
