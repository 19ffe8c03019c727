import { z } from 'zod'
import { ASPECT_RATIOS, RESOLUTIONS } from '#domain/generation/video-dimensions.ts'
import { QUALITIES, VIDEO_MODES } from '#domain/generation/video-generation-form.ts'

/**
 * A video task's params as stored: what the user asked for, with the resolution already the one
 * rendered (9:16 is 720p only). The web writes them, the worker reads them back through this schema.
 */
export const videoTaskParamsSchema = z.object({
  mode: z.enum(VIDEO_MODES),
  prompt: z.string(),
  aspectRatio: z.enum(ASPECT_RATIOS),
  resolution: z.enum(RESOLUTIONS),
  quality: z.enum(QUALITIES),
})

export type VideoTaskParams = z.infer<typeof videoTaskParamsSchema>
