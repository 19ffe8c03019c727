import { json, redirect } from '@remix-run/node'
import type { User } from '#platform/db-schema.ts'
import { getDb } from '#platform/db.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'
import { getRequestToken, getSessionCookie } from '#domain/sessions/auth.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { requestExport } from '#domain/user-data/data-exports.server.ts'
import { accountDeletionSchema, deleteOwnAccount } from '#domain/user-data/own-account-deletion.server.ts'
import type { AccountActionData } from '#app/accounts/account-form.server.ts'

/**
 * /profile's "Download my data" and "Delete my account" forms (plain posts, so they work without
 * JavaScript). A refusal answers its status and message beside its own form.
 */
const ownDataIntents = ['export', 'delete-account'] as const

export function isOwnDataForm(form: FormData) {
  return (ownDataIntents as readonly unknown[]).includes(form.get('intent'))
}

export async function answerOwnDataForm(request: Request, form: FormData, user: User) {
  const intent = form.get('intent') as (typeof ownDataIntents)[number]
  try {
    if (intent === 'export') {
      await requestExport(getDb(), user.id)
      const message = 'Your data export is being made. The link will be here and in your email in a few minutes.'
      return json<AccountActionData>({ result: { status: 'success' }, message, form: intent })
    }
    const parsed = accountDeletionSchema.safeParse({
      password: form.get('password') ?? '',
      confirmation: form.get('confirmation') ?? '',
    })
    if (!parsed.success) throw new HttpError(400, 'Please fill in the form')
    const token = (await getRequestToken(request)) ?? ''
    await deleteOwnAccount(getDb(), user, token, parsed.data, getClientAddress(request))
  } catch (error) {
    if (!(error instanceof HttpError)) throw error
    const result = { status: 'error' as const, error: { '': [error.message] } }
    return json<AccountActionData>({ result, form: intent }, { status: error.status, headers: error.headers })
  }
  const cookie = await getSessionCookie().serialize('', { maxAge: 0 })
  return redirect('/?deleted=account', { headers: { 'Set-Cookie': cookie } })
}
