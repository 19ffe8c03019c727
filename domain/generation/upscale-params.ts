import { z } from 'zod'

/**
 * "Make it bigger" (decision 0036): which version of which task to enlarge, and how much. The web
 * validates the request with it and stores it as the upscale task's params; the worker reads it back.
 */

/** What task_versions.model says of an enlarged version: the model, or sharp's Lanczos when it could not load. */
export const UPSCALE_MODEL = 'esrgan-slim'
export const UPSCALE_FALLBACK = 'lanczos'

/** The longest side an enlarged picture may have. */
export const MAX_UPSCALED_SIDE = 8192

export const upscaleScales = [2, 4] as const

export const upscaleRequestSchema = z.object({
  index: z.coerce
    .number({ invalid_type_error: 'index must be a number' })
    .int('index must be a whole number')
    .min(0, 'index cannot be negative')
    .max(3, 'index must be a version of the run (0 to 3)')
    .default(0),
  scale: z.coerce
    .number({ required_error: 'scale is required (2 or 4)', invalid_type_error: 'scale must be 2 or 4' })
    .refine((scale): scale is 2 | 4 => scale === 2 || scale === 4, 'scale must be 2 or 4'),
})

export type UpscaleRequest = { index: number; scale: 2 | 4 }

export const upscaleParamsSchema = z.object({
  upscale: z.object({
    fromTaskId: z.string().uuid(),
    index: z.number().int().min(0),
    scale: z.union([z.literal(2), z.literal(4)]),
  }),
})

export type UpscaleParams = z.infer<typeof upscaleParamsSchema>
