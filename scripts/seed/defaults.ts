import type { DB } from '#platform/db.server.ts'
import type { Env } from '#platform/env.server.ts'
import { hashPassword } from '#domain/accounts/password.server.ts'
import { defaultSystemConfig, saveSystemConfig } from '#domain/credits/system-config.server.ts'
import { createUser, findUserByEmail } from '#domain/accounts/user.server.ts'

export const defaultGalleryStyles = [
  ['random', 'Random'],
  ['fashion', 'Fashion'],
  ['sports', 'Sports'],
  ['portrait', 'Portrait'],
  ['festival', 'Festival'],
  ['cosplay', 'Cosplay'],
  ['travel', 'Travel'],
  ['oil_painting', 'Oil Painting'],
  ['minimalism', 'Minimalism'],
] as const

const defaultGeneratorStyles = [
  ['general', 'General'],
  ['fashion_female', 'Fashion (female)'],
  ['fashion_male', 'Fashion (male)'],
] as const

/** Default data every installation starts with. Idempotent: existing rows are left as they are. */
export async function seedDefaults(db: DB) {
  const hasConfig = await db.selectFrom('system_config').select('id').executeTakeFirst()
  // HD's price is left unset: it then follows the image cost (twice it) until a superadmin sets it.
  const { hdImageCost: _followsImageCost, ...seeded } = defaultSystemConfig
  if (!hasConfig) await saveSystemConfig(db, seeded)

  const styles = [
    ...defaultGalleryStyles.map(([value, label], position) => ({ value, label, kind: 'gallery' as const, position })),
    ...defaultGeneratorStyles.map(([value, label], position) => ({
      value,
      label,
      kind: 'generator' as const,
      position,
    })),
  ]
  await db
    .insertInto('styles')
    .values(styles)
    .onConflict((oc) => oc.column('value').doNothing())
    .execute()
}

/** When ADMIN_EMAIL and ADMIN_PASSWORD are both set, makes sure that superadmin exists and can log in. */
export async function ensureAdmin(db: DB, env: Pick<Env, 'ADMIN_EMAIL' | 'ADMIN_PASSWORD'>) {
  if (!env.ADMIN_EMAIL || !env.ADMIN_PASSWORD) return
  const existing = await findUserByEmail(db, env.ADMIN_EMAIL)
  if (!existing) {
    await createUser(db, {
      email: env.ADMIN_EMAIL,
      name: 'Administrator',
      password: env.ADMIN_PASSWORD,
      role: 'superadmin',
      emailVerified: true,
    })
    console.log(`[seed] created superadmin ${env.ADMIN_EMAIL}`)
    return
  }
  await db
    .updateTable('users')
    .set({ role: 'superadmin', is_banned: false, password_hash: await hashPassword(env.ADMIN_PASSWORD) })
    .where('id', '=', existing.id)
    .execute()
}
