import type { GuidedField } from '#domain/generation/guided-fields.ts'

/**
 * A template and a style as JSON (the gallery's API answers, read by its pages), the widths of a
 * template's stored renditions, and what "Customize in generator" hands to /generate. Shared by the
 * gallery's server and browser code; the Update Case forms' schemas are in gallery-forms.ts.
 */

/** Widths of the two WebP renditions made once at upload (the original is kept as well). */
export const THUMBNAIL_WIDTH = 480
export const DISPLAY_WIDTH = 960

/** The generator's guided options a template carries (spec section 3, Inspiration image), and its own prompt. */
export type OtherParams = Record<GuidedField, string> & { templatePrompt: string }

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

/**
 * A template as the gallery page carries it: what its card shows, and the prompts and options the
 * Use template dialog applies for a signed-in viewer only (galleryTemplate).
 */
export interface GalleryTemplate extends Pick<
  TemplateJson,
  '_id' | 'imageUrl' | 'thumbnailUrl' | 'width' | 'height' | 'name'
> {
  parameters: Pick<TemplateJson['parameters'], 'style'> | TemplateJson['parameters']
}

/** A gallery template that carries what the Use template dialog applies. */
export type ApplicableTemplate = GalleryTemplate & { parameters: TemplateJson['parameters'] }

export const isApplicable = (template: GalleryTemplate): template is ApplicableTemplate =>
  'prompt' in template.parameters

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
