import { z } from 'zod'
import { PROMPT_MAX_LENGTH } from '#domain/generation/prompt.ts'
import { ASPECT_RATIOS, effectiveResolution, RESOLUTIONS } from '#domain/generation/video-dimensions.ts'

/**
 * The fields of POST /api/async-video/generate (spec section 7), shared by the API, the
 * /generate-video page's action and its in-browser validation: `mode`, `image` (image mode only),
 * `prompt`, `aspectRatio`, `resolution`, `quality`. The client's `creditCost` is not read: the
 * server charges the configured cost of the chosen quality.
 */

export const VIDEO_MODES = ['image', 'text'] as const
export const QUALITIES = ['stable', 'fast'] as const

export type VideoMode = (typeof VIDEO_MODES)[number]
export type VideoQuality = (typeof QUALITIES)[number]

export const modeLabels: Record<VideoMode, string> = { image: 'Image to Video', text: 'Text to Video' }
export const aspectRatioLabels: Record<(typeof ASPECT_RATIOS)[number], string> = {
  '16:9': '16:9 Landscape',
  '9:16': '9:16 Portrait',
}
export const resolutionLabels: Record<(typeof RESOLUTIONS)[number], string> = {
  '720p': '720p Standard',
  '1280p': '1280p Higher',
}
export const qualityLabels: Record<VideoQuality, string> = { stable: 'Stable', fast: 'Fast' }

export const MAX_VIDEO_IMAGE_MB = 10
export const FILE_TOO_LARGE = `File size should not exceed ${MAX_VIDEO_IMAGE_MB}MB`
const NO_IMAGE_MESSAGE = 'Please upload an image first for image-to-video generation'
const NO_PROMPT_MESSAGE = 'Please enter a prompt for text-to-video generation'

const choice = <T extends readonly [string, ...string[]]>(values: T, what: string) =>
  z.enum(values, { errorMap: () => ({ message: `Unknown ${what}: choose ${values.join(' or ')}` }) })

export const videoGenerationSchema = z
  .object({
    mode: choice(VIDEO_MODES, 'mode').default('image'),
    // An empty file input arrives as undefined.
    image: z
      .instanceof(File)
      .refine((file) => file.size <= MAX_VIDEO_IMAGE_MB * 1024 * 1024, FILE_TOO_LARGE)
      .optional(),
    prompt: z
      .string()
      .trim()
      .max(PROMPT_MAX_LENGTH, `The prompt must be at most ${PROMPT_MAX_LENGTH} characters`)
      .default(''),
    aspectRatio: choice(ASPECT_RATIOS, 'aspect ratio').default('16:9'),
    // The page disables the select for 9:16, so it may be missing.
    resolution: choice(RESOLUTIONS, 'resolution').default('720p'),
    quality: choice(QUALITIES, 'quality').default('stable'),
  })
  .superRefine((value, ctx) => {
    if (value.mode === 'image' && !value.image)
      ctx.addIssue({ code: 'custom', path: ['image'], message: NO_IMAGE_MESSAGE })
    if (value.mode === 'text' && !value.prompt)
      ctx.addIssue({ code: 'custom', path: ['prompt'], message: NO_PROMPT_MESSAGE })
  })
  .transform((value) => ({
    ...value,
    // Portrait exists only at 720p; a text-mode upload is not used.
    resolution: effectiveResolution(value.aspectRatio, value.resolution),
    image: value.mode === 'image' ? value.image : undefined,
  }))

export type VideoGenerationForm = z.output<typeof videoGenerationSchema>

/** The credits a video of that quality costs, from the system config's two video costs. */
export function videoCost(
  costs: { videoGenerationCreditCost: number; fastVideoGenerationCreditCost: number },
  quality: VideoQuality,
) {
  return quality === 'fast' ? costs.fastVideoGenerationCreditCost : costs.videoGenerationCreditCost
}
