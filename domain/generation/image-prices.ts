/**
 * What a portrait run may ask for and what it costs: the version counts, the qualities and their
 * prices. Without zod, so that the pages that only show a price (the gallery's Use template modal)
 * do not load the form's schema (decision 0021: the first screen loads no more than it shows).
 */

/** How many versions one run may make (`variants`); the price is the image cost times this. */
export const VARIANT_CHOICES = [1, 2, 4] as const

/** Standard is the provider's usual 1024 px; HD its largest documented size, at its own price. */
export const QUALITY_CHOICES = ['standard', 'hd'] as const
export type ImageQuality = (typeof QUALITY_CHOICES)[number]

/** One version's price: the image cost, or HD's own (`hdImageCost`). */
export const imageVersionCost = (
  settings: { imageGenerationCreditCost: number; hdImageCost: number },
  quality: ImageQuality = 'standard',
) => (quality === 'hd' ? settings.hdImageCost : settings.imageGenerationCreditCost)

/** Each pet beyond the first adds `extraPetCost` to a version's price. */
export const extraPetsCost = (settings: { extraPetCost: number }, petCount: number) =>
  settings.extraPetCost * Math.max(0, petCount - 1)

/**
 * A version's price with its pets: the image cost (or HD's) plus `extraPetCost` for each pet beyond
 * the first; a run of `variants` versions costs it once per version (charged as one ledger line).
 */
export const imageRunCost = (
  settings: { imageGenerationCreditCost: number; hdImageCost: number; extraPetCost: number },
  variants: number,
  quality: ImageQuality = 'standard',
  petCount = 1,
) => (imageVersionCost(settings, quality) + extraPetsCost(settings, petCount)) * variants
