import { mediaUrl } from '#domain/media/media-url.ts'
import type { Role, User } from '#platform/db-schema.ts'
import type { DB, Tx } from '#platform/db.server.ts'
import { hashPassword } from '#domain/accounts/password.server.ts'
import { grantCredits } from '#domain/credits/credits.server.ts'
import { getSystemConfig } from '#domain/credits/system-config.server.ts'

const roles = ['user', 'admin', 'superadmin'] as const satisfies readonly Role[]

/** The spec's two readings name the plain role 'normal' or 'user'; both mean user. */
export function normalizeRole(role: string): Role | null {
  if (role === 'normal') return 'user'
  return (roles as readonly string[]).includes(role) ? (role as Role) : null
}

export function findUserByEmail(db: DB | Tx, email: string) {
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.trim().toLowerCase()))
    .executeTakeFirst()
}

export function findUserById(db: DB | Tx, id: string) {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
}

interface NewAccount {
  email: string
  name: string
  password?: string
  role?: Role
  googleId?: string
  emailVerified?: boolean
  /** Starting credits; defaults to the configured new-user bonus. */
  credits?: number
  creditsDescription?: string
}

/** Creates a user and books the starting credits as an 'earn' ledger entry, in one transaction. */
export async function createUser(db: DB, account: NewAccount): Promise<User> {
  const passwordHash = account.password ? await hashPassword(account.password) : null
  return db.transaction().execute(async (tx) => {
    const credits = account.credits ?? (await getSystemConfig(tx)).newUserBonusCredits
    const user = await tx
      .insertInto('users')
      .values({
        email: account.email.trim().toLowerCase(),
        name: account.name.trim(),
        password_hash: passwordHash,
        role: account.role ?? 'user',
        google_id: account.googleId ?? null,
        email_verified: account.emailVerified ?? false,
        profile_picture: null,
        last_login_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    if (credits > 0) {
      await grantCredits(tx, {
        userId: user.id,
        type: 'earn',
        amount: credits,
        description: account.creditsDescription ?? 'New user bonus',
      })
    }
    return { ...user, credits }
  })
}

/** A user as the API answers it (spec section 3). */
export function toPublicUser(user: User) {
  return {
    _id: user.id,
    id: user.id,
    name: user.name,
    email: user.email,
    role: user.role,
    credits: user.credits,
    profilePicture: mediaUrl(user.profile_picture),
    createdAt: user.created_at.toISOString(),
    lastLogin: user.last_login_at ? user.last_login_at.toISOString() : null,
    isBanned: user.is_banned,
  }
}

export type PublicUser = ReturnType<typeof toPublicUser>
