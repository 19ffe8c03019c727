import { sql } from 'kysely'
import { getDb } from '#platform/db.server.ts'

/** Fly's health check: 200 when the database answers, 503 when it does not (the pool reconnects on its own). */
export async function loader() {
  try {
    await sql`SELECT 1`.execute(getDb())
    return new Response('ok', { headers: { 'Cache-Control': 'no-store' } })
  } catch (error) {
    console.error('[healthz] database check failed:', error instanceof Error ? error.message : error)
    return new Response('database unavailable', { status: 503, headers: { 'Cache-Control': 'no-store' } })
  }
}
