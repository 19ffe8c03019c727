import type { TaskList } from 'graphile-worker'
import type { JobName } from '#app/utils/jobs.server.ts'
import { cleanupSessions } from './cleanup-sessions.ts'

/** Every job the web can enqueue (see JobPayloads in app/utils/jobs.server.ts) has its handler here. */
export const taskList: Partial<Record<JobName, TaskList[string]>> = {
  cleanup_sessions: cleanupSessions,
}

/** Recurring jobs, in graphile-worker's crontab format (UTC). */
export const crontab = ['0 3 * * * cleanup_sessions'].join('\n')
