import { createHmac, timingSafeEqual } from 'node:crypto'
import { z } from 'zod'
import type { DB } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'

/**
 * Whether a user gets an email when long work ends (on by default), and the signed token of the
 * one-click unsubscribe link: `<user id>.<HMAC-SHA256 of the purpose and id under SESSION_SECRET>`,
 * so the link needs no sign-in and cannot be made for another account.
 */

const PURPOSE = 'task-emails-unsubscribe'

function signature(userId: string) {
  return createHmac('sha256', getEnv().SESSION_SECRET).update(`${PURPOSE}:${userId}`).digest('base64url')
}

export function unsubscribeToken(userId: string) {
  return `${userId}.${signature(userId)}`
}

/** The user id the token was made for, or null when it is malformed or not ours. */
export function userOfUnsubscribeToken(token: string | null | undefined): string | null {
  const [userId, given] = (token ?? '').split('.')
  if (!userId || !given || !z.string().uuid().safeParse(userId).success) return null
  const expected = Buffer.from(signature(userId))
  const actual = Buffer.from(given)
  return actual.length === expected.length && timingSafeEqual(actual, expected) ? userId : null
}

export async function setTaskEmails(db: DB, userId: string, on: boolean) {
  await db.updateTable('users').set({ task_emails: on }).where('id', '=', userId).execute()
}
