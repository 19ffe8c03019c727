import { json } from '@remix-run/node'
import { z } from 'zod'
import { updateAvatar } from '#domain/accounts/avatar.server.ts'
import { toPublicUser } from '#domain/accounts/user.server.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'
import { decodeImageDataUrl, MAX_UPLOAD_BYTES } from '#domain/media/images.server.ts'

const pictureRequired = 'Please choose a picture to upload'
const bodySchema = z.object({
  profilePicture: z
    .string({ required_error: pictureRequired, invalid_type_error: pictureRequired })
    .min(1, pictureRequired),
})

// A 10 MB picture is about 13.4 MB once base64-encoded, plus the JSON around it.
const maxBodyBytes = Math.ceil((MAX_UPLOAD_BYTES * 4) / 3) + 64 * 1024

/** POST /api/auth/update-avatar { profilePicture: data URL } -> { message, profilePicture, user } */
export const action = apiHandler(async ({ request }) => {
  const user = await requireUser(request)
  const { profilePicture } = bodySchema.parse(await readJson(request, { maxBytes: maxBodyBytes }))
  const updated = await updateAvatar(getDb(), user, decodeImageDataUrl(profilePicture))
  const publicUser = toPublicUser(updated)
  return json({ message: 'Avatar updated successfully', profilePicture: publicUser.profilePicture, user: publicUser })
})
