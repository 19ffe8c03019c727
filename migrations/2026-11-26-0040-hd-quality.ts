import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // HD's own price (issue 32, item 1). NULL: twice the image cost, whatever that is at the time.
  await sql`
    ALTER TABLE system_config ADD COLUMN hd_image_cost integer CHECK (hd_image_cost >= 0)
  `.execute(db)

  // A version delivered smaller than HD gets back the difference between the HD and standard
  // prices: a partial refund of a version that is kept, so it is once per (task, version) on its own
  // index, beside the full refund of a version that never came (decision 0035).
  await sql`ALTER TABLE credit_transactions ADD COLUMN refund_kind text CHECK (refund_kind IN ('hd_shortfall'))`.execute(
    db,
  )
  await sql`DROP INDEX credit_transactions_refund_once`.execute(db)
  await sql`
    CREATE UNIQUE INDEX credit_transactions_refund_once ON credit_transactions (task_id, version_index)
      WHERE type = 'earn' AND refund_kind IS NULL
  `.execute(db)
  await sql`
    CREATE UNIQUE INDEX credit_transactions_hd_refund_once ON credit_transactions (task_id, version_index)
      WHERE type = 'earn' AND refund_kind = 'hd_shortfall'
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`DROP INDEX credit_transactions_hd_refund_once`.execute(db)
  await sql`DROP INDEX credit_transactions_refund_once`.execute(db)
  await sql`DELETE FROM credit_transactions WHERE refund_kind IS NOT NULL`.execute(db)
  await sql`
    CREATE UNIQUE INDEX credit_transactions_refund_once ON credit_transactions (task_id, version_index) WHERE type = 'earn'
  `.execute(db)
  await sql`ALTER TABLE credit_transactions DROP COLUMN refund_kind`.execute(db)
  await sql`ALTER TABLE system_config DROP COLUMN hd_image_cost`.execute(db)
}
