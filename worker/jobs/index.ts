import type { TaskList } from 'graphile-worker'
import { GRAPHILE_MAX_ATTEMPTS, jobKinds, type JobKind, type JobName } from '#platform/jobs.server.ts'
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
import { submitPrintOrderJob } from './submit-print-order.ts'
import { syncPrintOrderJob } from './sync-print-order.ts'
import { sweepPrintOrdersJob } from './sweep-print-orders.ts'

/** Every job the web can enqueue (see JobPayloads in platform/jobs.server.ts) has its handler here. */
export const jobHandlers: Record<JobName, TaskList[string]> = withRequestIds({
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
  submit_print_order: submitPrintOrderJob,
  sync_print_order: syncPrintOrderJob,
  sweep_print_orders: sweepPrintOrdersJob,
})

/**
 * Recurring jobs (those with a `schedule` in jobKinds), in graphile-worker's crontab format (UTC).
 * graphile-worker gives a crontab job GRAPHILE_MAX_ATTEMPTS and priority 0 unless its line says otherwise.
 */
export const crontab = Object.entries(jobKinds)
  .flatMap(([name, kind]: [string, JobKind]) => {
    if (kind.schedule === undefined) return []
    const options = new URLSearchParams()
    if (kind.maxAttempts !== GRAPHILE_MAX_ATTEMPTS) options.set('max', String(kind.maxAttempts))
    if (kind.priority !== 0) options.set('priority', String(kind.priority))
    return [`${kind.schedule} ${name}${options.size > 0 ? ` ?${options}` : ''}`]
  })
  .join('\n')
