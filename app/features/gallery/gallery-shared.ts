/**
 * What the gallery's server and browser code share: the API shape of a template, the image
 * sizes stored for it, and the zod schemas of the Update Case forms (the page and the API validate
 * with the same ones).
 */
import { z } from 'zod'
import { GUIDED_FIELD_MAX_LENGTH, PROMPT_MAX_LENGTH } from '#app/features/generation/prompt.ts'

/** Widths of the two WebP renditions made once at upload (the original is kept as well). */
export const THUMBNAIL_WIDTH = 480
export const DISPLAY_WIDTH = 960

/** The generator's guided options a template may carry (spec section 3, Inspiration image). */
export const OTHER_PARAM_KEYS = [
  'personification',
  'clothingTop',
  'accessories',
  'clothingPants',
  'clothingShoes',
  'action',
  'background',
] as const
export type OtherParamKey = (typeof OTHER_PARAM_KEYS)[number]
export type OtherParams = Record<OtherParamKey, string> & { templatePrompt: string }

/** GET /api/image/all answers a list of these. */
export interface TemplateJson {
  _id: string
  imageUrl: string
  originalImageUrl: string
  thumbnailUrl: string
  width: number
  height: number
  name: string
  parameters: { style: string; prompt: string; otherParams: OtherParams }
  createdAt: string
}

export interface StyleJson {
  value: string
  label: string
}

/** The gallery's "all" filter; never a stored style value (those are slugs without this meaning). */
export const ALL_STYLES = 'all'

/** What "Customize in generator" leaves in sessionStorage for /generate, which reads and removes it. */
export const TEMPLATE_HANDOFF_KEY = 'pawtrait:template'
export interface TemplateHandoff {
  prompt: string
  otherParams: OtherParams
  templateId: string
}

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

const otherParamFields = Object.fromEntries(
  OTHER_PARAM_KEYS.map((key) => [key, optionalText(GUIDED_FIELD_MAX_LENGTH)]),
) as Record<OtherParamKey, ReturnType<typeof optionalText>>

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
