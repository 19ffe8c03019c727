import { json } from '@remix-run/node'
import { apiHandler } from '#app/utils/api.server.ts'
import { readMultipartForm } from '#app/utils/multipart.server.ts'
import { badRequest } from '#domain/http-error.server.ts'
import { photoCheckLimits } from '#domain/limits/photo-check-limits.server.ts'
import { consumeRateLimits } from '#domain/limits/rate-limit.server.ts'
import { assertUploadableImage } from '#domain/media/images.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { checkPetPhoto } from '#domain/photo-check/check-pet-photo.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'
import { getDb } from '#platform/db.server.ts'

/**
 * POST /api/photo-check (multipart, `image`): the generator pages check a pet photo as soon as it
 * is chosen and show the answer beside it. Signed-in users only, within a per-user and per-client
 * limit (429 with Retry-After): a vision call may cost. The submission checks the photo again (the
 * vision answer then comes from the cache).
 */
export const action = apiHandler(async ({ request }) => {
  const user = await requireUser(request)
  await consumeRateLimits(getDb(), photoCheckLimits(user.id, getClientAddress(request)))
  const form = await readMultipartForm(request, { maxFiles: 1, maxTextFieldBytes: 1024 })
  const image = form.get('image')
  if (!(image instanceof File)) throw badRequest('Please choose a photo of your pet')
  const bytes = Buffer.from(await image.arrayBuffer())
  await assertUploadableImage(bytes)
  const { ok, refusal, warnings, traits, vision } = await checkPetPhoto(getDb(), bytes)
  return json({ ok, message: refusal ?? null, warnings, traits: traits ?? null, vision })
})
