import type { Task } from 'graphile-worker'
import { z } from 'zod'
import { buildExport, failExport } from '#domain/user-data/data-exports.server.ts'
import { getDb } from '#platform/db.server.ts'

const payloadSchema = z.object({ exportId: z.string().uuid() })

/** A user's "Download my data" zip; the last failed attempt marks the export failed so they may ask again. */
export const buildDataExport: Task = async (payload, helpers) => {
  const { exportId } = payloadSchema.parse(payload)
  try {
    const outcome = await buildExport(getDb(), exportId)
    helpers.logger.info(`data export ${exportId}: ${outcome}`)
  } catch (error) {
    if (helpers.job.attempts >= helpers.job.max_attempts) {
      await failExport(getDb(), exportId, error instanceof Error ? error.message : String(error))
    }
    throw error
  }
}
