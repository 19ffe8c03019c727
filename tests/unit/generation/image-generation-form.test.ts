import { parseWithZod } from '@conform-to/zod'
import { promptInputFor, type ImageTaskParams } from '#domain/generation/image-task-params.ts'
import { imageGenerationSchema } from '#domain/generation/image-generation-form.ts'
import { buildImagePrompt } from '#domain/generation/prompt.ts'
import { guided } from '#tests/unit/providers/image-fixtures.ts'

const photo = () => new File([new Uint8Array(10)], 'pet.jpg', { type: 'image/jpeg' })

function parse(fields: Record<string, string>, images = [photo()]) {
  const form = new FormData()
  for (const image of images) form.append('images', image)
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  return parseWithZod(form, { schema: imageGenerationSchema })
}

test('the mode follows the spec: a prompt means Customize, none means Guide, style template means a template', () => {
  const guided = parse({ style: 'general', personification: 'yes', clothingShoes: 'boots', prompt: '' })
  expect(guided.status).toBe('success')
  const custom = parse({ style: 'general', prompt: 'A pirate cat' }, [photo(), photo(), photo()])
  expect(custom.status).toBe('success')
  const template = parse({ style: 'template', templatePrompt: 'A royal portrait', template_id: 'default' })
  expect(template.status).toBe('success')
  // An empty reference input still sends an empty part; it is not an image.
  const withEmptyInput = parse({ style: 'general', mode: 'customize', prompt: 'x' }, [photo(), new File([], '')])
  expect(withEmptyInput.status === 'success' && withEmptyInput.value.images).toHaveLength(1)
})

test.each([
  [{ style: 'general' }, [], 'images', 'Please upload a pet photo first'],
  [{ style: 'watercolour' }, [photo()], 'style', 'Unknown style'],
  [{ style: 'general', mode: 'customize' }, [photo()], 'prompt', 'Please describe the portrait you want'],
  [{ style: 'general' }, [photo(), photo()], 'images', 'only be added in Customize mode'],
  [{ style: 'general', prompt: 'x' }, Array.from({ length: 7 }, photo), 'images', 'at most 5 reference images'],
  [{ style: 'template' }, [photo()], 'templatePrompt', 'The template has no prompt'],
  [{ style: 'general', prompt: 'p'.repeat(4001) }, [photo()], 'prompt', 'at most 4000 characters'],
] as const)('%j with %i images is refused on %s', (fields, images, field, message) => {
  const submission = parse(fields, [...images])
  expect(submission.status).toBe('error')
  expect(submission.reply().error?.[field]?.join(' ')).toContain(message)
})

test('an oversized file is refused before upload with the spec text', () => {
  const big = new File([new Uint8Array(10 * 1024 * 1024 + 1)], 'big.jpg')
  const submission = parse({ style: 'general' }, [big])
  expect(submission.reply().error?.['images[0]']).toEqual(['File size should not exceed 10MB'])
})

const customizeParams = (): ImageTaskParams => ({
  mode: 'customize',
  style: 'general',
  guided: guided(),
  prompt: 'Make it snow',
  templatePrompt: '',
  templateId: null,
})

test('stored params turn into the prompt the provider receives', () => {
  const params = customizeParams()
  expect(promptInputFor(params, 3)).toEqual({
    mode: 'customize',
    style: 'general',
    prompt: 'Make it snow',
    referenceImageCount: 2,
  })
  expect(buildImagePrompt(promptInputFor(params, 3))).toContain('Instructions: Make it snow')
  expect(promptInputFor({ ...params, mode: 'template', templatePrompt: 'A castle' }, 1)).toEqual({
    mode: 'template',
    style: 'general',
    templatePrompt: 'A castle',
    prompt: 'Make it snow',
  })
})

test("a saved pet's photos lead the images: references are counted after them, and its traits join the prompt", () => {
  const params: ImageTaskParams = {
    ...customizeParams(),
    petPhotoCount: 3,
    traits: { species: 'cat', breed: 'Maine Coon', colours: ['silver tabby'], markings: [] },
  }
  const input = promptInputFor(params, 4)
  expect(input).toMatchObject({ referenceImageCount: 1, petPhotoCount: 3 })
  const prompt = buildImagePrompt(input)
  expect(prompt).toContain('The first 3 images all show this same pet from different angles.')
  expect(prompt).toContain('The pet is a cat (Maine Coon) with silver tabby fur; keep these exactly.')
  expect(prompt).toContain('Use the other image as a visual reference.')
  expect(buildImagePrompt(promptInputFor({ ...params, mode: 'guide' }, 3))).toContain('The pet is a cat (Maine Coon)')
})
