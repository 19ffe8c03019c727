import type { DB, Tx } from '#platform/db.server.ts'

/** The four settings a superadmin edits, with the spec's defaults (section 9). */
export const defaultSystemConfig = {
  newUserBonusCredits: 10,
  imageGenerationCreditCost: 2,
  videoGenerationCreditCost: 20,
  fastVideoGenerationCreditCost: 10,
}

export type SystemSettings = typeof defaultSystemConfig

export async function getSystemConfig(db: DB | Tx): Promise<SystemSettings> {
  const row = await db.selectFrom('system_config').selectAll().executeTakeFirst()
  if (!row) return defaultSystemConfig
  return {
    newUserBonusCredits: row.new_user_bonus_credits,
    imageGenerationCreditCost: row.image_generation_credit_cost,
    videoGenerationCreditCost: row.video_generation_credit_cost,
    fastVideoGenerationCreditCost: row.fast_video_generation_credit_cost,
  }
}

export async function saveSystemConfig(db: DB | Tx, settings: SystemSettings) {
  const row = {
    new_user_bonus_credits: settings.newUserBonusCredits,
    image_generation_credit_cost: settings.imageGenerationCreditCost,
    video_generation_credit_cost: settings.videoGenerationCreditCost,
    fast_video_generation_credit_cost: settings.fastVideoGenerationCreditCost,
  }
  await db
    .insertInto('system_config')
    .values(row)
    .onConflict((oc) => oc.column('id').doUpdateSet({ ...row, updated_at: new Date() }))
    .execute()
  return settings
}
