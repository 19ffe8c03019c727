import { z } from 'zod'
import { recordPageView } from '#domain/analytics/events.server.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { getOptionalUser } from '#domain/sessions/auth.server.ts'
import { pathOf } from '#platform/url-redaction.ts'

const beaconSchema = z.object({
  path: z
    .string({ message: 'path must be a string' })
    .startsWith('/', 'path must start with /')
    .max(2000, 'path is too long')
    // Only the path is kept: query strings can carry tokens.
    .transform(pathOf),
})

/** The page-view beacon of client-side navigations (app/analytics/page-view-beacon.tsx). */
export const action = apiHandler(async ({ request }) => {
  const { path } = beaconSchema.parse(await readJson(request))
  const user = await getOptionalUser(request)
  recordPageView(request, { path, userId: user?.id ?? null })
  return new Response(null, { status: 204 })
})
