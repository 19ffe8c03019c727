import { sql, type Selectable } from 'kysely'
import type { SystemConfigTable } from '#platform/db-schema.ts'
import type { DB, Tx } from '#platform/db.server.ts'
import type { SystemSettingsUpdate } from './system-config-schema.ts'

/** The settings a superadmin edits: the spec's four with its defaults (section 9), then later ones. */
export const defaultSystemConfig = {
  newUserBonusCredits: 10,
  imageGenerationCreditCost: 2,
  videoGenerationCreditCost: 20,
  fastVideoGenerationCreditCost: 10,
  /** Likeness fixes each paid image run includes for free (decision 0030). */
  freeLikenessFixes: 1,
  /** The price of one "Make it bigger" (decision 0036). */
  upscaleCost: 2,
  /** HD's price a version (decision 0035): twice the image cost until a superadmin sets it. */
  hdImageCost: 4,
  /** What a sharer earns when a visitor they referred first buys, and how often a month (decision 0037). */
  referralCredits: 20,
  referralMaxPerMonth: 10,
  /** A print's price over the lab's cost (decision 0042): not credits, a factor with two decimals. */
  printMarkup: 1.6,
  /** What each pet beyond the first adds to a portrait version's price (issue 41). */
  extraPetCost: 1,
}

export type SystemSettings = typeof defaultSystemConfig

export async function getSystemConfig(db: DB | Tx): Promise<SystemSettings> {
  return settingsFrom(await db.selectFrom('system_config').selectAll().executeTakeFirst())
}

/** A system_config row, as read or as JSON (where the markup is a number). */
type SettingsRow = Omit<Selectable<SystemConfigTable>, 'id' | 'updated_at' | 'print_markup'> & {
  print_markup: string | number
}

/** The settings as one JSON column (null when there is no row yet) of a statement that reads more. */
export const systemConfigColumn = (db: DB | Tx) =>
  db.selectFrom('system_config as c').select(sql<SettingsRow>`to_jsonb(c)`.as('settings'))

/** The settings a payment charges by (rememberedSettings), and their row as JSON, null for none. */
export interface RememberedSettings {
  settings: SystemSettings
  json: string | null
}

let remembered: RememberedSettings | undefined

/**
 * The settings as this process last read them, for a payment: its statement checks that they are
 * still the current ones (settingsUnchanged), and when they are not, reads the current ones for
 * the next attempt (rememberSettings). A read fewer for every payment.
 */
export async function rememberedSettings(db: DB): Promise<RememberedSettings> {
  remembered ??= rememberedFrom(
    (await db.selectNoFrom(systemConfigColumn(db).as('settings')).executeTakeFirstOrThrow()).settings,
  )
  return remembered
}

/** Remembers the settings a payment's statement found current (its `systemConfigColumn`). */
export function rememberSettings(row: SettingsRow | null) {
  remembered = rememberedFrom(row)
}

const rememberedFrom = (row: SettingsRow | null): RememberedSettings => ({
  settings: settingsFrom(row),
  json: row ? JSON.stringify(row) : null,
})

/** Whether the settings are still those remembered (their row as JSON, or none), as the statement sees them. */
export const settingsUnchanged = (json: string | null) =>
  sql<boolean>`(SELECT to_jsonb(c) FROM system_config c) IS NOT DISTINCT FROM ${json}::jsonb`

/** The settings of a system_config row; with none yet, the defaults. */
function settingsFrom(row: SettingsRow | null | undefined): SystemSettings {
  if (!row) return defaultSystemConfig
  return {
    newUserBonusCredits: row.new_user_bonus_credits,
    imageGenerationCreditCost: row.image_generation_credit_cost,
    videoGenerationCreditCost: row.video_generation_credit_cost,
    fastVideoGenerationCreditCost: row.fast_video_generation_credit_cost,
    freeLikenessFixes: row.free_likeness_fixes,
    upscaleCost: row.upscale_cost,
    hdImageCost: row.hd_image_cost ?? row.image_generation_credit_cost * 2,
    referralCredits: row.referral_credits,
    referralMaxPerMonth: row.referral_max_per_month,
    printMarkup: Number(row.print_markup),
    extraPetCost: row.extra_pet_cost,
  }
}

/**
 * Saves the settings given. A later setting left out keeps its stored value (or, with no row yet,
 * its column default): an update with only the spec's four changes only those. Answers what was given.
 */
export async function saveSystemConfig(db: DB | Tx, settings: SystemSettingsUpdate) {
  const row = {
    new_user_bonus_credits: settings.newUserBonusCredits,
    image_generation_credit_cost: settings.imageGenerationCreditCost,
    video_generation_credit_cost: settings.videoGenerationCreditCost,
    fast_video_generation_credit_cost: settings.fastVideoGenerationCreditCost,
    ...(settings.freeLikenessFixes === undefined ? {} : { free_likeness_fixes: settings.freeLikenessFixes }),
    ...(settings.upscaleCost === undefined ? {} : { upscale_cost: settings.upscaleCost }),
    ...(settings.hdImageCost === undefined ? {} : { hd_image_cost: settings.hdImageCost }),
    ...(settings.referralCredits === undefined ? {} : { referral_credits: settings.referralCredits }),
    ...(settings.referralMaxPerMonth === undefined ? {} : { referral_max_per_month: settings.referralMaxPerMonth }),
    ...(settings.printMarkup === undefined ? {} : { print_markup: settings.printMarkup }),
    ...(settings.extraPetCost === undefined ? {} : { extra_pet_cost: settings.extraPetCost }),
  }
  await db
    .insertInto('system_config')
    .values(row)
    .onConflict((oc) => oc.column('id').doUpdateSet({ ...row, updated_at: new Date() }))
    .execute()
  return settings
}
