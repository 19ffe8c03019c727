import path from 'node:path'
import { parseWorkerEnv } from '#worker/env.ts'
import { startEmbeddedPostgres } from './embedded-postgres.ts'

/**
 * Fewer glibc malloc arenas for the web and worker processes: sharp's threads otherwise fragment
 * memory into many arenas that are never given back (measured in bench/generation.ts). The
 * Dockerfile sets the same.
 */
export const processDefaults = { MALLOC_ARENA_MAX: '2' }

/**
 * The web process's Node flags: V8's young generation (two semi-spaces) bounded to 32 MB a
 * semi-space rather than derived from the machine's memory (64 MB on this 24 GB machine, held
 * once 10,000 streams were open; decision 0045), so the web's memory is the same on every machine;
 * 16 MB would save a few KB a stream more at about 5 % more CPU a task read. The Dockerfile,
 * fly.toml and `npm run start:web` pass the same.
 */
export const webNodeFlags = ['--max-semi-space-size=32']

/**
 * `npm start` and `npm run dev` on one machine: checks the variables of every process it will
 * start, and without DATABASE_URL starts an embedded PostgreSQL under DATA_DIR, whose URL becomes
 * DATABASE_URL for this process and its children. Resolves to what stops that database (nothing
 * to stop with DATABASE_URL set).
 */
export async function startDatabaseUnlessConfigured(tag: string): Promise<() => Promise<void>> {
  const env = parseWorkerEnv()
  if (env.DATABASE_URL) return async () => {}
  const folder = path.join(env.DATA_DIR, 'postgres')
  console.log(`[${tag}] starting embedded PostgreSQL in ${folder}`)
  const database = await startEmbeddedPostgres(folder)
  process.env.DATABASE_URL = database.url
  return database.stop
}
