import { templateUploadSchema } from '#domain/gallery/gallery-forms.ts'
import { GUIDED_FIELDS, pickGuided } from '#domain/generation/guided-fields.ts'
import { imageGenerationSchema } from '#domain/generation/image-generation-form.ts'
import { imageTaskParamsSchema } from '#domain/generation/image-task-params.ts'
import { guidedOptionsSchema } from '#domain/generation/prompt.ts'

test('the guided options, the generator form, the stored params and the template upload all take the one list', () => {
  expect(Object.keys(guidedOptionsSchema.shape)).toEqual(GUIDED_FIELDS)
  expect(Object.keys(imageTaskParamsSchema.shape.guided.shape)).toEqual(GUIDED_FIELDS)
  const formFields = Object.keys(imageGenerationSchema.innerType().shape)
  const uploadFields = Object.keys(templateUploadSchema.shape)
  for (const field of GUIDED_FIELDS) {
    expect(formFields).toContain(field)
    expect(uploadFields).toContain(field)
  }
})

test('pickGuided keeps the guided fields, in the list’s order, and nothing else', () => {
  const form = {
    prompt: 'left out',
    background: 'a beach',
    action: 'running',
    clothingShoes: '',
    clothingPants: '',
    accessories: 'a hat',
    clothingTop: 'a scarf',
    personification: 'yes',
  }
  const picked = pickGuided(form)
  expect(Object.keys(picked)).toEqual(GUIDED_FIELDS)
  expect(picked).not.toHaveProperty('prompt')
  expect(picked).toMatchObject({ background: 'a beach', personification: 'yes' })
  expect(guidedOptionsSchema.parse(picked)).toEqual(picked)
})
