import type { TaskList } from 'graphile-worker'
import type { JobName } from '#platform/jobs.server.ts'
import { withRequestIds } from '#worker/job-context.ts'
import { cleanupAuthRecords } from './cleanup-auth-records.ts'
import { cleanupSessions } from './cleanup-sessions.ts'
import { expireMedia } from './expire-media.ts'
import { generateImage } from './generate-image.ts'
import { generateVideo } from './generate-video.ts'
import { upscaleImage } from './upscale-image.ts'
import { recoverStalled } from './recover-stalled-tasks.ts'
import { rollupAnalytics } from './rollup-analytics.ts'
import { sendEmail } from './send-email.ts'
import { sendTaskEndEmail } from './send-task-end-email.ts'
import { verifyPayment } from './verify-payment.ts'
import { sendPasswordReset } from './send-password-reset.ts'
import { buildDataExport } from './build-data-export.ts'

/** Every job the web can enqueue (see JobPayloads in platform/jobs.server.ts) has its handler here. */
export const jobHandlers: Partial<Record<JobName, TaskList[string]>> = withRequestIds({
  cleanup_sessions: cleanupSessions,
  cleanup_auth_records: cleanupAuthRecords,
  send_email: sendEmail,
  send_task_end_email: sendTaskEndEmail,
  send_password_reset: sendPasswordReset,
  generate_image: generateImage,
  generate_video: generateVideo,
  upscale_image: upscaleImage,
  expire_media: expireMedia,
  recover_stalled_tasks: recoverStalled,
  rollup_analytics: rollupAnalytics,
  verify_payment: verifyPayment,
  build_data_export: buildDataExport,
})

/** Recurring jobs, in graphile-worker's crontab format (UTC). */
export const crontab = [
  '0 3 * * * cleanup_sessions',
  '30 3 * * * cleanup_auth_records',
  '0 * * * * expire_media',
  '* * * * * recover_stalled_tasks',
  '5,35 * * * * rollup_analytics',
].join('\n')
