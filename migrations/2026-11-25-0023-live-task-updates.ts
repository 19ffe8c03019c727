import { type Kysely, sql } from 'kysely'

// Frozen: never edit a migration that has shipped; add a new one instead.

export async function up(db: Kysely<unknown>) {
  // Every change a user can see (status, progress, result, error) takes the next number of one
  // sequence: the live stream's event id, so a reconnecting browser asks for what changed since.
  await sql`CREATE SEQUENCE generation_task_updates`.execute(db)
  await sql`
    ALTER TABLE generation_tasks
      ADD COLUMN update_seq bigint NOT NULL DEFAULT nextval('generation_task_updates'),
      ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now(),
      ADD COLUMN end_email_queued_at timestamptz
  `.execute(db)
  await sql`CREATE INDEX generation_tasks_user_updates ON generation_tasks (user_id, update_seq)`.execute(db)
  await sql`ALTER TABLE users ADD COLUMN task_emails boolean NOT NULL DEFAULT true`.execute(db)

  await sql`
    CREATE FUNCTION generation_task_number_update() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF (NEW.status, NEW.progress, NEW.result_key, NEW.error)
         IS DISTINCT FROM (OLD.status, OLD.progress, OLD.result_key, OLD.error) THEN
        NEW.update_seq := nextval('generation_task_updates');
        NEW.updated_at := now();
      END IF;
      RETURN NEW;
    END $$
  `.execute(db)
  await sql`
    CREATE TRIGGER generation_tasks_number_update BEFORE UPDATE ON generation_tasks
    FOR EACH ROW EXECUTE FUNCTION generation_task_number_update()
  `.execute(db)

  // Whoever writes a task (the web's submission, a worker, recovery), every web process hears of it
  // at commit. "q": the shared queue changed, so queued tasks' positions moved.
  // A video's end, or an image's after more than two minutes, also queues the end-of-work email,
  // once: a task reaches completed or failed only once, and the job key folds duplicates.
  await sql`
    CREATE FUNCTION generation_task_announce() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' AND NEW.update_seq = OLD.update_seq THEN
        RETURN NULL;
      END IF;
      PERFORM pg_notify('task_updates', json_build_object(
        't', NEW.id, 'u', NEW.user_id, 's', NEW.update_seq,
        'q', TG_OP = 'INSERT' OR OLD.status = 'queued' AND NEW.status <> 'queued'
             OR OLD.status <> 'queued' AND NEW.status = 'queued'
      )::text);
      IF TG_OP = 'UPDATE' AND NEW.status IN ('completed', 'failed') AND OLD.status NOT IN ('completed', 'failed')
         AND (NEW.kind = 'video' OR coalesce(NEW.finished_at, now()) - NEW.created_at > interval '2 minutes') THEN
        PERFORM graphile_worker.add_job(
          identifier => 'send_task_end_email',
          payload => json_build_object('taskId', NEW.id),
          max_attempts => 10,
          job_key => 'task-end-email:' || NEW.id
        );
      END IF;
      RETURN NULL;
    END $$
  `.execute(db)
  await sql`
    CREATE TRIGGER generation_tasks_announce AFTER INSERT OR UPDATE ON generation_tasks
    FOR EACH ROW EXECUTE FUNCTION generation_task_announce()
  `.execute(db)
}

export async function down(db: Kysely<unknown>) {
  await sql`DROP TRIGGER generation_tasks_announce ON generation_tasks`.execute(db)
  await sql`DROP FUNCTION generation_task_announce()`.execute(db)
  await sql`DROP TRIGGER generation_tasks_number_update ON generation_tasks`.execute(db)
  await sql`DROP FUNCTION generation_task_number_update()`.execute(db)
  await sql`ALTER TABLE users DROP COLUMN task_emails`.execute(db)
  await sql`
    ALTER TABLE generation_tasks DROP COLUMN update_seq, DROP COLUMN updated_at, DROP COLUMN end_email_queued_at
  `.execute(db)
  await sql`DROP SEQUENCE generation_task_updates`.execute(db)
}
