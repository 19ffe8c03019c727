import type { User } from '#platform/db-schema.ts'
import type { DB } from '#platform/db.server.ts'
import { makeAvatar } from '#domain/media/images.server.ts'
import { getStorage, mediaKey } from '#platform/storage.server.ts'

/**
 * Sniffs and re-encodes an uploaded picture as the user's square avatar, stores it under the user's
 * own prefix and removes the previous one (no other user can share a key under that prefix).
 */
export async function updateAvatar(db: DB, user: User, upload: Buffer): Promise<User> {
  const avatar = await makeAvatar(upload)
  const key = mediaKey(`avatars/${user.id}`, avatar.bytes, avatar.ext)
  await getStorage().put(key, avatar.bytes, avatar.mimeType)
  const updated = await db
    .updateTable('users')
    .set({ profile_picture: key })
    .where('id', '=', user.id)
    .returningAll()
    .executeTakeFirstOrThrow()
  const previous = user.profile_picture
  if (previous && previous !== key) {
    await getStorage()
      .delete(previous)
      .catch((error: unknown) => console.warn('[avatar] could not delete', previous, error))
  }
  return updated
}
