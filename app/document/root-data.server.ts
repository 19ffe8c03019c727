import { json, type LoaderFunctionArgs } from '@remix-run/node'
import { toPublicUser } from '#domain/accounts/user.server.ts'
import { userPermissions } from '#domain/permissions/permissions.server.ts'
import { getOptionalUser } from '#domain/sessions/auth.server.ts'
import { getEnv } from '#platform/env.server.ts'

/**
 * The root route's loader: what every page's chrome needs. It lives apart from root.tsx so that
 * useRootData can name its type without importing the root module that renders its users.
 */
export async function rootLoader({ request }: LoaderFunctionArgs) {
  const user = await getOptionalUser(request)
  const env = getEnv()
  return json({
    user: user ? toPublicUser(user) : null,
    // What the menus may link to: the permissions table's answer for this user.
    permissions: user ? userPermissions(user) : [],
    surpriseUrl: env.SURPRISE_URL ?? null,
  })
}
