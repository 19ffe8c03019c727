import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.
// Decision 0027: payment proofs outlive their account, anonymised; a revoked session ends its live streams.

export async function up(db: Kysely<unknown>) {
  // A deleted account's proofs stay for accounting, without their owner (account-deletion.server.ts
  // also clears the note and the screenshot; SET NULL only backs up a deletion made in SQL).
  await sql`
    ALTER TABLE payment_proofs
      ALTER COLUMN user_id DROP NOT NULL,
      DROP CONSTRAINT payment_proofs_user_id_fkey,
      ADD CONSTRAINT payment_proofs_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE SET NULL
  `.execute(db)

  // Every web process hears that a user's sessions changed, whoever changed them (a logout, a
  // password change or reset, a ban, a deletion through the cascade, an admin in SQL), on the
  // channel of task changes: their open live streams check their sessions again at once. Identical
  // payloads in one transaction are delivered once, so signing out 50 sessions is one notice.
  // Expired sessions swept away by maintenance have no live stream left to end.
  await sql`
    CREATE FUNCTION user_sessions_announce_revocation() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_TABLE_NAME = 'users' THEN
        PERFORM pg_notify('task_updates', json_build_object('r', NEW.id)::text);
      ELSE
        PERFORM pg_notify('task_updates', json_build_object('r', OLD.user_id)::text);
      END IF;
      RETURN NULL;
    END $$
  `.execute(db)
  await sql`
    CREATE TRIGGER sessions_announce_revocation AFTER DELETE ON sessions
    FOR EACH ROW WHEN (OLD.expires_at > now()) EXECUTE FUNCTION user_sessions_announce_revocation()
  `.execute(db)
  await sql`
    CREATE TRIGGER users_announce_ban AFTER UPDATE OF is_banned ON users
    FOR EACH ROW WHEN (NEW.is_banned AND NOT OLD.is_banned) EXECUTE FUNCTION user_sessions_announce_revocation()
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`DROP TRIGGER users_announce_ban ON users`.execute(db)
  await sql`DROP TRIGGER sessions_announce_revocation ON sessions`.execute(db)
  await sql`DROP FUNCTION user_sessions_announce_revocation()`.execute(db)
  await sql`DELETE FROM payment_proofs WHERE user_id IS NULL`.execute(db)
  await sql`
    ALTER TABLE payment_proofs
      DROP CONSTRAINT payment_proofs_user_id_fkey,
      ADD CONSTRAINT payment_proofs_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE,
      ALTER COLUMN user_id SET NOT NULL
  `.execute(db)
}
