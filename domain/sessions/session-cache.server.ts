import type { DatabaseNotices } from '#domain/live-updates/database-notices.server.ts'

/** A live session as the cache keeps it: whose, and until when the entry may answer. */
interface Entry {
  userId: string
  validUntil: number
}

interface SessionCacheOptions {
  notices: DatabaseNotices
  /** How long an entry answers without the database (the bound on a revocation whose notice was lost). */
  ttlMs: number
  /** Past this many entries the cache starts afresh (a few more reads, no growth). */
  maxEntries?: number
  onLookup?: (hit: boolean) => void
}

export type SessionCache = ReturnType<typeof createSessionCache>

/**
 * Which user a session token signs in, remembered by this web process for `ttlMs` (decision 0045),
 * so that a status poll costs one query, not two. A revocation (logout, password change, ban,
 * deletion) is announced by the database's triggers (decision 0027) on the process's LISTEN
 * connection and forgets that user's entries at once; while that connection is down (notices may
 * be lost) nothing is answered from memory, and a reconnection forgets everything. A read that
 * overlapped a revocation is not remembered (`epoch`).
 */
export function createSessionCache({ notices, ttlMs, maxEntries = 50_000, onLookup }: SessionCacheOptions) {
  const entries = new Map<string, Entry>()
  let epoch = 0
  const forgetAll = () => {
    epoch += 1
    entries.clear()
  }
  notices.subscribe({
    onRevocation: ({ revokedUserId }) => {
      epoch += 1
      for (const [tokenHash, entry] of entries) if (entry.userId === revokedUserId) entries.delete(tokenHash)
    },
    onConnected: forgetAll,
  })

  return {
    /** The user the session (by token hash) signs in; `read` asks the database (null: no live session). */
    async userIdOf(
      tokenHash: string,
      read: (tokenHash: string) => Promise<{ userId: string; expiresAt: Date } | null>,
    ): Promise<string | null> {
      const now = Date.now()
      const listening = notices.isListening()
      const entry = listening ? entries.get(tokenHash) : undefined
      onLookup?.(entry !== undefined && entry.validUntil > now)
      if (entry && entry.validUntil > now) return entry.userId
      const readEpoch = epoch
      const session = await read(tokenHash)
      if (!session) {
        entries.delete(tokenHash)
        return null
      }
      if (listening && notices.isListening() && epoch === readEpoch) {
        if (entries.size >= maxEntries) entries.clear()
        entries.set(tokenHash, {
          userId: session.userId,
          validUntil: Math.min(now + ttlMs, session.expiresAt.getTime()),
        })
      }
      return session.userId
    },
  }
}
