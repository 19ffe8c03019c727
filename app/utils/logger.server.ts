import { Logger } from 'graphile-worker'

/** graphile-worker's own logger, trimmed: its info lines drown the app's at start-up. */
export const graphileLogger = new Logger((scope) => (level, message) => {
  if (level === 'debug') return
  if (level === 'info' && !scope.taskIdentifier) return
  const line = `[worker${scope.taskIdentifier ? `:${scope.taskIdentifier}` : ''}] ${message}`
  if (level === 'error' || level === 'warning') console.error(line)
  else console.log(line)
})
