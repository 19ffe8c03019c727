import { sql } from 'kysely'
import { z } from 'zod'
import type { User } from '#app/utils/db-schema.ts'
import type { DB, Tx } from '#app/utils/db.server.ts'
import { HttpError } from '#app/utils/http.server.ts'
import { getStorage } from '#app/utils/storage.server.ts'
import { setCredits } from '#app/features/credits/credits.server.ts'
import { revokeUserSessions } from '#app/utils/session.server.ts'
import { userTaskKeys } from '#app/features/generation/tasks.server.ts'
import { createUser, findUserByEmail, normalizeRole } from '#app/features/accounts/user.server.ts'

/**
 * What a superadmin does to other accounts (spec: /user-management). Refusals come back as a reason,
 * not a thrown error, so the API answers them in English and the page in Chinese.
 */

export type AdminRefusal = 'notFound' | 'superadminProtected' | 'emailTaken'
export type AdminResult<T> = { ok: true; value: T } | { ok: false; refusal: AdminRefusal }

const refuse = (refusal: AdminRefusal) => ({ ok: false, refusal }) as const

export const DEFAULT_NEW_USER_CREDITS = 10
// users.credits is a 32-bit integer; a cap well inside it turns a typo into a message, not a 500.
export const MAX_CREDITS = 1_000_000_000

/** The validation messages of the admin forms, in the caller's language. */
export interface UserFormMessages {
  emailRequired: string
  emailInvalid: string
  passwordTooShort: string
  nameRequired: string
  roleInvalid: string
  creditsInvalid: string
  creditsTooLarge: string
}

export const englishUserFormMessages: UserFormMessages = {
  emailRequired: 'Email is required',
  emailInvalid: 'Please enter a valid email address',
  passwordTooShort: 'Password must be at least 6 characters long',
  nameRequired: 'Name is required',
  roleInvalid: 'Role must be user, admin or superadmin',
  creditsInvalid: 'Credits must be a whole number of 0 or more',
  creditsTooLarge: `Credits cannot exceed ${MAX_CREDITS}`,
}

function creditsField(messages: UserFormMessages) {
  return z
    .number({ required_error: messages.creditsInvalid, invalid_type_error: messages.creditsInvalid })
    .int(messages.creditsInvalid)
    .min(0, messages.creditsInvalid)
    .max(MAX_CREDITS, messages.creditsTooLarge)
}

export function newUserSchema(messages: UserFormMessages) {
  return z.object({
    email: z
      .string({ required_error: messages.emailRequired, invalid_type_error: messages.emailRequired })
      .trim()
      .min(1, messages.emailRequired)
      .max(254, messages.emailInvalid)
      .email(messages.emailInvalid),
    password: z
      .string({ required_error: messages.passwordTooShort, invalid_type_error: messages.passwordTooShort })
      .min(6, messages.passwordTooShort)
      .max(200),
    name: z
      .string({ required_error: messages.nameRequired, invalid_type_error: messages.nameRequired })
      .trim()
      .min(1, messages.nameRequired)
      .max(100),
    // 'normal' is the spec's other name for the plain user role.
    role: z
      .string({ invalid_type_error: messages.roleInvalid })
      .default('user')
      .transform(
        (role, ctx) =>
          normalizeRole(role) ?? (ctx.addIssue({ code: 'custom', message: messages.roleInvalid }), z.NEVER),
      ),
    credits: creditsField(messages).default(DEFAULT_NEW_USER_CREDITS),
  })
}

export function creditsSchema(messages: UserFormMessages) {
  return z.object({ credits: creditsField(messages) })
}

export type NewUserInput = z.infer<ReturnType<typeof newUserSchema>>

/** Every account, newest first. */
export function listUsers(db: DB) {
  return db.selectFrom('users').selectAll().orderBy('created_at', 'desc').execute()
}

export interface ConsumptionRow {
  id: string
  name: string
  email: string
  totalSpent: number
  credits: number
  lastLogin: string | null
}

/**
 * Users ranked by credits spent. A failed task's refund is an 'earn' row tied to that task, so it
 * is subtracted: a refunded generation costs nothing.
 */
export async function consumptionRanking(db: DB, limit = 100): Promise<ConsumptionRow[]> {
  const spent = db
    .selectFrom('credit_transactions')
    .select(['user_id', sql<number>`-sum(amount)`.as('total')])
    .where((eb) => eb.or([eb('type', '=', 'spend'), eb.and([eb('type', '=', 'earn'), eb('task_id', 'is not', null)])]))
    .groupBy('user_id')
    .as('spent')
  const rows = await db
    .selectFrom('users')
    .leftJoin(spent, 'spent.user_id', 'users.id')
    .select([
      'users.id',
      'users.name',
      'users.email',
      'users.credits',
      'users.last_login_at',
      sql<number>`coalesce(spent.total, 0)`.as('totalSpent'),
    ])
    .orderBy('totalSpent', 'desc')
    .orderBy('users.created_at')
    .limit(limit)
    .execute()
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    email: row.email,
    totalSpent: row.totalSpent,
    credits: row.credits,
    lastLogin: row.last_login_at?.toISOString() ?? null,
  }))
}

export async function createUserAsAdmin(db: DB, input: NewUserInput): Promise<AdminResult<User>> {
  if (await findUserByEmail(db, input.email)) return refuse('emailTaken')
  try {
    const user = await createUser(db, {
      ...input,
      emailVerified: true,
      creditsDescription: 'Initial credits from an administrator',
    })
    return { ok: true, value: user }
  } catch (error) {
    // Two admins adding the same address at once: the unique index decides.
    if ((error as { code?: string }).code === '23505') return refuse('emailTaken')
    throw error
  }
}

const isUuid = (value: string) => z.string().uuid().safeParse(value).success

/** Runs `change` on the locked target account; superadmins can be protected from it. */
async function changeUser<T>(
  db: DB,
  id: string,
  options: { protectSuperadmin: boolean },
  change: (tx: Tx, user: User) => Promise<T>,
): Promise<AdminResult<T>> {
  if (!isUuid(id)) return refuse('notFound')
  return db.transaction().execute(async (tx) => {
    const user = await tx.selectFrom('users').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
    if (!user) return refuse('notFound')
    if (options.protectSuperadmin && user.role === 'superadmin') return refuse('superadminProtected')
    return { ok: true, value: await change(tx, user) }
  })
}

/**
 * Deletes the account with its tasks, ledger and proofs (cascade), then its photos, results and
 * avatar. Payment screenshots stay: their content-hashed keys may be shared with other proofs.
 */
export async function deleteUserAsAdmin(db: DB, id: string) {
  const outcome = await changeUser(db, id, { protectSuperadmin: true }, async (tx, user) => {
    const keys = await userTaskKeys(tx, user.id)
    if (user.profile_picture) keys.push(user.profile_picture)
    await tx.deleteFrom('users').where('id', '=', user.id).execute()
    return { user, keys }
  })
  if (!outcome.ok) return outcome
  await getStorage().deleteMany(outcome.value.keys)
  return { ok: true as const, value: outcome.value.user }
}

/** Sets the balance; the difference goes to the ledger as an 'adjustment'. */
export function setCreditsAsAdmin(db: DB, id: string, credits: number) {
  return changeUser(db, id, { protectSuperadmin: false }, async (tx, user) => {
    await setCredits(tx, user.id, credits, 'Balance set by an administrator')
    return { ...user, credits }
  })
}

/** Banning also ends every session of the user at once. */
export function setBannedAsAdmin(db: DB, id: string, isBanned: boolean) {
  return changeUser(db, id, { protectSuperadmin: true }, async (tx, user) => {
    await tx.updateTable('users').set({ is_banned: isBanned }).where('id', '=', user.id).execute()
    if (isBanned) await revokeUserSessions(tx, user.id)
    return { ...user, is_banned: isBanned }
  })
}

export const refusalStatus: Record<AdminRefusal, number> = { notFound: 404, superadminProtected: 403, emailTaken: 409 }

const englishRefusals: Record<AdminRefusal, string> = {
  notFound: 'User not found',
  superadminProtected: 'Super administrators cannot be banned or deleted',
  emailTaken: 'A user with this email already exists',
}

/** For the API: the value, or the refusal as an HttpError with its status and English message. */
export function valueOrHttpError<T>(result: AdminResult<T>): T {
  if (!result.ok) throw new HttpError(refusalStatus[result.refusal], englishRefusals[result.refusal])
  return result.value
}
