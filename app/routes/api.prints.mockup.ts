import { apiHandler } from '#app/utils/api.server.ts'
import { mediaResponse } from '#app/utils/media-response.server.ts'
import { notFound } from '#domain/http-error.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { quoteMockup } from '#domain/prints/print-quotes.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getStorage } from '#platform/storage.server.ts'

/** GET /api/prints/mockup?quoteId=… → the quote's mockup (JPEG), for its owner. */
export const loader = apiHandler(async ({ request }) => {
  const user = await requireUser(request)
  const key = await quoteMockup(getDb(), user.id, new URL(request.url).searchParams.get('quoteId') ?? '')
  if (!key) throw notFound('This quote has no mockup')
  return mediaResponse(request, getStorage(), key, 'private, max-age=1800')
})
