/**
 * The zod schemas of the gallery's admin forms (Update Case: a new style, a template upload); the
 * page and the API validate with the same ones. Apart from template-json.ts so the public gallery
 * does not ship zod.
 */
import { z } from 'zod'
import { GUIDED_FIELD_MAX_LENGTH, guidedRecord } from '#domain/generation/guided-fields.ts'
import { PROMPT_MAX_LENGTH } from '#domain/generation/prompt.ts'

const BOTH_REQUIRED = 'Please enter both style value and label'

/** A style value is a lowercase slug: "Oil painting" and "oil-painting" both become oil_painting. */
export const newStyleSchema = z.object({
  value: z
    .string({ required_error: BOTH_REQUIRED, invalid_type_error: BOTH_REQUIRED })
    .trim()
    .min(1, BOTH_REQUIRED)
    .max(40, 'The style value can be at most 40 characters')
    .transform((value) => value.toLowerCase().replace(/[\s-]+/g, '_'))
    .pipe(z.string().regex(/^[a-z0-9]+(?:_[a-z0-9]+)*$/, 'The style value may only use letters, digits and _')),
  label: z
    .string({ required_error: BOTH_REQUIRED, invalid_type_error: BOTH_REQUIRED })
    .trim()
    .min(1, BOTH_REQUIRED)
    .max(60, 'The style label can be at most 60 characters'),
})
export type NewStyle = z.infer<typeof newStyleSchema>

const optionalText = (max: number) =>
  z.string({ invalid_type_error: 'Expected text' }).trim().max(max, `At most ${max} characters`).default('')

const otherParamFields = guidedRecord(() => optionalText(GUIDED_FIELD_MAX_LENGTH))

/** POST /api/image/update-case and the Update Case page's template form. */
export const templateUploadSchema = z.object({
  image: z.instanceof(File, { message: 'Please upload an image' }),
  style: z
    .string({ required_error: 'Please choose a style', invalid_type_error: 'Please choose a style' })
    .trim()
    .min(1, 'Please choose a style'),
  templatePrompt: optionalText(PROMPT_MAX_LENGTH),
  prompt: optionalText(PROMPT_MAX_LENGTH),
  name: optionalText(100),
  ...otherParamFields,
})
export type TemplateUpload = z.infer<typeof templateUploadSchema>
