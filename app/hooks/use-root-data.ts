import { useRouteLoaderData } from '@remix-run/react'
import type { loader } from '#app/root.tsx'

/** The root loader's data (signed-in user, access flags) from any component. */
export function useRootData() {
  return useRouteLoaderData<typeof loader>('root')
}
