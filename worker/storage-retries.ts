import { getLogger } from '#platform/logger.server.ts'

/** Waits between tries: about 8 s in all, on top of the S3 client's own quick retries of each call. */
const DELAYS_MS = [500, 1_000, 2_000, 4_000]

/**
 * Runs a media storage call, trying again with backoff when it fails (an S3 5xx, a timeout, a
 * dropped connection), so that a short storage outage does not cost a generation attempt (or a
 * provider result). The last failure is thrown.
 */
export async function withStorageRetries<T>(what: string, call: () => Promise<T>, delays = DELAYS_MS): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call()
    } catch (error) {
      const delay = delays[attempt]
      if (delay === undefined) throw error
      getLogger().warn(
        `storage: ${what} failed (${error instanceof Error ? error.message : error}); retrying in ${delay} ms`,
      )
      await new Promise((resolve) => setTimeout(resolve, delay))
    }
  }
}
