import type { User } from '#platform/db-schema.ts'
import type { DB } from '#platform/db.server.ts'
import { getStorage } from '#platform/storage.server.ts'
import { userTaskKeys } from '#domain/generation/user-tasks.server.ts'
import { anonymiseProofsOf, lockProofsOf } from '#domain/payments/payments.server.ts'
import { userPetPhotoKeys } from '#domain/pets/pets.server.ts'
import { userSharePageKeys } from '#domain/sharing/share-pages.server.ts'
import { userExportKeys } from '#domain/user-data/data-exports.server.ts'
import { anonymisePrintOrdersOf } from '#domain/prints/print-order-privacy.server.ts'

/**
 * The one way an account is deleted, whoever asks (an administrator now; the user later). In one
 * transaction, with the account locked: `allow` may refuse; the tasks, ledger and sessions go by
 * cascade (the sessions trigger ends the account's live streams on every web process), and so do
 * the saved pets, share pages and data exports; payment proofs and print orders stay for accounting, anonymised
 * (anonymiseProofsOf, anonymisePrintOrdersOf: no recipient). After the commit the files go: photos, results, the
 * pets' photos, the avatar, the data exports, the payment screenshots and the print files and mockups.
 * Null when there is no such account.
 */
export async function deleteAccount(db: DB, userId: string, allow: (user: User) => void = () => {}) {
  const deleted = await db.transaction().execute(async (tx) => {
    // A review locks the proof, then its owner: taking them the other way round deadlocked (a 500).
    await lockProofsOf(tx, userId)
    const user = await tx.selectFrom('users').selectAll().where('id', '=', userId).forUpdate().executeTakeFirst()
    if (!user) return null
    allow(user)
    const keys = [...(await userTaskKeys(tx, user.id)), ...(await userPetPhotoKeys(tx, user.id))]
    keys.push(...(await userSharePageKeys(tx, user.id)))
    if (user.profile_picture) keys.push(user.profile_picture)
    keys.push(...(await userExportKeys(tx, user.id)))
    keys.push(...(await anonymiseProofsOf(tx, user.id)))
    keys.push(...(await anonymisePrintOrdersOf(tx, user.id)))
    await tx.deleteFrom('users').where('id', '=', user.id).execute()
    return { user, keys }
  })
  if (!deleted) return null
  await getStorage().deleteMany(deleted.keys)
  return deleted.user
}
