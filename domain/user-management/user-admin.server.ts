import { sql } from 'kysely'
import { z } from 'zod'
import type { User } from '#platform/db-schema.ts'
import type { DB, Tx } from '#platform/db.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { setCredits } from '#domain/credits/credits.server.ts'
import { isProtectedAccount } from '#domain/permissions/permissions.ts'
import { revokeUserSessions } from '#domain/sessions/session.server.ts'
import { deleteAccount } from '#domain/user-management/account-deletion.server.ts'
import { createUser, findUserByEmail, normalizeRole } from '#domain/accounts/user.server.ts'

/**
 * What a superadmin does to other accounts (spec: /user-management). A refusal is an HttpError
 * whose `code` names it, so the API answers its English message and the page words it in Chinese.
 */

const refusals = {
  notFound: { status: 404, message: 'User not found' },
  superadminProtected: { status: 403, message: 'Super administrators cannot be banned or deleted' },
  emailTaken: { status: 409, message: 'A user with this email already exists' },
} as const

export type AdminRefusal = keyof typeof refusals

export const isAdminRefusal = (code: string | undefined): code is AdminRefusal => Boolean(code && code in refusals)

function refuse(refusal: AdminRefusal): never {
  throw new HttpError(refusals[refusal].status, refusals[refusal].message, { code: refusal })
}

const DEFAULT_NEW_USER_CREDITS = 10
// users.credits is a 32-bit integer; a cap well inside it turns a typo into a message, not a 500.
const MAX_CREDITS = 1_000_000_000

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

export async function createUserAsAdmin(db: DB, input: NewUserInput): Promise<User> {
  if (await findUserByEmail(db, input.email)) refuse('emailTaken')
  try {
    const user = await createUser(db, {
      ...input,
      emailVerified: true,
      creditsDescription: 'Initial credits from an administrator',
    })
    return user
  } catch (error) {
    // Two admins adding the same address at once: the unique index decides.
    if ((error as { code?: string }).code === '23505') refuse('emailTaken')
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
): Promise<T> {
  if (!isUuid(id)) refuse('notFound')
  return db.transaction().execute(async (tx) => {
    const user = await tx.selectFrom('users').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
    if (!user) refuse('notFound')
    if (options.protectSuperadmin && isProtectedAccount(user.role)) refuse('superadminProtected')
    return change(tx, user)
  })
}

/** Deletes the account (account-deletion.server.ts); super administrators are protected. */
export async function deleteUserAsAdmin(db: DB, id: string) {
  if (!isUuid(id)) refuse('notFound')
  const user = await deleteAccount(db, id, (user) => {
    if (isProtectedAccount(user.role)) refuse('superadminProtected')
  })
  return user ?? refuse('notFound')
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
