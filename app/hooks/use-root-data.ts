import { useRouteLoaderData } from '@remix-run/react'
import type { rootLoader } from '#app/document/root-data.server.ts'
import type { Permission } from '#domain/permissions/permissions.ts'

/** The root loader's data (signed-in user, their permissions) from any component. */
export function useRootData() {
  return useRouteLoaderData<typeof rootLoader>('root')
}

/**
 * Whether the signed-in user holds `permission`, for showing a link or a button. The server
 * checks again on every request: hiding a control is never the protection.
 */
export function useCan() {
  const permissions = useRootData()?.permissions
  return (permission: Permission) => permissions?.includes(permission) ?? false
}
