/**
 * How many input images one request may carry, per image provider, from each API's documentation:
 * OpenAI's image edits take at most 16 `image[]` parts; Gemini's image models at most 14 input
 * images. The offline renderers take any number. The web refuses a submission over the smallest
 * limit of the configured chain (any of them may make a version) before any charge; the providers
 * refuse one too (worker/providers/image/). Pure.
 */

export const OPENAI_MAX_IMAGES = 16
export const GEMINI_MAX_IMAGES = 14

const limits: Record<string, number> = { openai: OPENAI_MAX_IMAGES, gemini: GEMINI_MAX_IMAGES }

/** The most input images every provider of the chain takes (Infinity for the offline ones). */
export const imageLimitOf = (providers: readonly string[]) =>
  Math.min(...providers.map((provider) => limits[provider] ?? Infinity))
