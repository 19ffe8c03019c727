import { json } from '@remix-run/node'
import { apiHandler } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { latestExport, requestExport } from '#domain/user-data/data-exports.server.ts'
import { getDb } from '#platform/db.server.ts'

export const handle = apiMethods('POST')

/**
 * POST /api/auth/export -> 202 { export: { id, status, url, createdAt, expiresAt } }: starts a zip of
 * the user's data (made by the worker, then emailed). GET answers the newest export still valid,
 * with its `url` once ready, or `{ export: null }`.
 */
export const loader = apiHandler(async ({ request }) => {
  const user = await requireUser(request)
  return json({ export: await latestExport(getDb(), user.id) }, { headers: { 'Cache-Control': 'private, no-store' } })
})

export const action = apiHandler(async ({ request }) => {
  requireMethod(request, handle)
  const user = await requireUser(request)
  const started = await requestExport(getDb(), user.id)
  return json({ message: 'Your data export is being made', export: started }, { status: 202 })
})
