/**
 * A paid run's free likeness fixes (decision 0030): a fix takes one while any is left, and a free
 * fix that fails gives it back, since the user got nothing for it. The family row's lock makes
 * parallel claims take turns.
 */
import type { Tx } from '#platform/db.server.ts'

/** Takes one of the family's free fixes if any is left. */
export async function claimFreeFix(tx: Tx, rootTaskId: string) {
  const claimed = await tx
    .updateTable('task_families')
    .set((eb) => ({ free_fixes_used: eb('free_fixes_used', '+', 1) }))
    .where('root_task_id', '=', rootTaskId)
    .whereRef('free_fixes_used', '<', 'free_fixes_included')
    .executeTakeFirst()
  return claimed.numUpdatedRows > 0n
}

/**
 * Gives a failed task's free fix back to its family. Called once, where the task turns failed. A
 * fix that cost nothing took a free fix (unless images cost nothing at all, when nothing is lost).
 */
export async function returnFreeFix(
  tx: Tx,
  task: { credit_cost: number; family_root_id: string | null; params: unknown },
) {
  const isFix = typeof task.params === 'object' && task.params !== null && 'likenessFix' in task.params
  if (task.credit_cost !== 0 || task.family_root_id === null || !isFix) return
  await tx
    .updateTable('task_families')
    .set((eb) => ({ free_fixes_used: eb('free_fixes_used', '-', 1) }))
    .where('root_task_id', '=', task.family_root_id)
    .where('free_fixes_used', '>', 0)
    .execute()
}
