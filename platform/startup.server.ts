import { isDatabaseUnreachable } from './database-outage.server.ts'
import { EnvError } from './env.server.ts'

/** Turns a start-up failure into one clear line and a non-zero exit, without a stack trace for known causes. */
export function exitOnStartupError(error: unknown): never {
  if (error instanceof EnvError) {
    console.error(error.message)
  } else if (isConnectionError(error)) {
    console.error(`Cannot reach the database (${describe(error)}). Check DATABASE_URL and that PostgreSQL is running.`)
  } else {
    console.error('Start-up failed:', error)
  }
  process.exit(1)
}

function describe(error: unknown): string {
  if (error instanceof AggregateError) return error.errors.map(describe).join('; ')
  return error instanceof Error ? error.message : String(error)
}

/** An unreachable server (the outage rule), or one that refuses these credentials or this database. */
function isConnectionError(error: unknown): boolean {
  if (error instanceof AggregateError) return error.errors.some(isConnectionError)
  const code = (error as { code?: string } | null)?.code ?? ''
  return isDatabaseUnreachable(error) || ['28P01', '3D000', '28000'].includes(code)
}
