import { z } from 'zod'

/**
 * The superadmin's settings (spec: each a number at or above 0; whole numbers, as credits are
 * integers). The spec's four are required in a PUT; settings added since (`laterSettingLabels`) are
 * optional, so a client that knows only the four keeps working and leaves the others as they were.
 */
const specSettingLabels = {
  newUserBonusCredits: 'New user bonus credits',
  imageGenerationCreditCost: 'Image generation cost',
  videoGenerationCreditCost: 'Video generation cost (Stable)',
  fastVideoGenerationCreditCost: 'Fast video generation cost',
} as const

/** A new setting slots in here, with its column in system-config.server.ts. */
const laterSettingLabels = {
  freeLikenessFixes: 'Free likeness fixes per paid run',
  upscaleCost: 'Make it bigger (upscale) cost',
  hdImageCost: 'HD image generation cost',
  referralCredits: 'Referral credits (a referred visitor’s first purchase)',
  referralMaxPerMonth: 'Referral rewards per sharer per month',
  printMarkup: 'Print markup (price over the lab’s cost, e.g. 1.6)',
  extraPetCost: 'Cost of each extra pet in a portrait',
} as const

export const systemSettingLabels = { ...specSettingLabels, ...laterSettingLabels }

/** Keeps values far inside PostgreSQL's integer range. */
const MAX_SETTING_VALUE = 1_000_000

const creditSetting = (label: string) =>
  z
    .number({ required_error: `${label} is required`, invalid_type_error: `${label} must be a number` })
    .int(`${label} must be a whole number`)
    .min(0, `${label} cannot be negative`)
    .max(MAX_SETTING_VALUE, `${label} cannot exceed ${MAX_SETTING_VALUE}`)

export const systemSettingsSchema = z.object({
  newUserBonusCredits: creditSetting(systemSettingLabels.newUserBonusCredits),
  imageGenerationCreditCost: creditSetting(systemSettingLabels.imageGenerationCreditCost),
  videoGenerationCreditCost: creditSetting(systemSettingLabels.videoGenerationCreditCost),
  fastVideoGenerationCreditCost: creditSetting(systemSettingLabels.fastVideoGenerationCreditCost),
  freeLikenessFixes: creditSetting(systemSettingLabels.freeLikenessFixes).optional(),
  upscaleCost: creditSetting(systemSettingLabels.upscaleCost).optional(),
  hdImageCost: creditSetting(systemSettingLabels.hdImageCost).optional(),
  referralCredits: creditSetting(systemSettingLabels.referralCredits).optional(),
  referralMaxPerMonth: creditSetting(systemSettingLabels.referralMaxPerMonth).optional(),
  printMarkup: z
    .number({ invalid_type_error: `${systemSettingLabels.printMarkup} must be a number` })
    .min(1, `${systemSettingLabels.printMarkup} must be at least 1 (never below the lab’s cost)`)
    .max(10, `${systemSettingLabels.printMarkup} cannot exceed 10`)
    .multipleOf(0.01, `${systemSettingLabels.printMarkup} has at most two decimals`)
    .optional(),
  extraPetCost: creditSetting(systemSettingLabels.extraPetCost).optional(),
})

export type SystemSettingsUpdate = z.infer<typeof systemSettingsSchema>
