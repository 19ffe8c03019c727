import { Agent } from 'undici'
import { createUser } from '#domain/accounts/user.server.ts'
import { percentile, round, startProcess, type scratchDatabase } from './lib.ts'

/**
 * Forgot password must not tell, by its timing, whether an address has an account (issue 14): the
 * request does the same work for both and the worker does the rest. Known and unknown addresses
 * are asked in turns, each from a loopback address of its own (the per-address limits stay out of
 * the way), over HTTP against the built web server.
 */
export async function benchForgotPassword({ db, url }: Awaited<ReturnType<typeof scratchDatabase>>) {
  const ROUNDS = 60
  for (let i = 0; i < ROUNDS; i++) {
    await createUser(db, { email: `known${i}@example.com`, name: `Known ${i}`, password: 'bench-password' })
  }
  const web = await startProcess('server/index.ts', { DATABASE_URL: url }, 'is running at')
  const times = { known: [] as number[], unknown: [] as number[] }
  try {
    const ask = async (email: string, localAddress: string) => {
      const agent = new Agent({ localAddress })
      try {
        const started = performance.now()
        const response = await fetch(`${web.url}/api/auth/forgot-password`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email }),
          dispatcher: agent,
        } as RequestInit)
        await response.arrayBuffer()
        if (!response.ok) throw new Error(`forgot-password answered ${response.status}`)
        return performance.now() - started
      } finally {
        await agent.close()
      }
    }
    for (let i = 0; i < ROUNDS; i++) {
      times.known.push(await ask(`known${i}@example.com`, `127.0.1.${i + 1}`))
      times.unknown.push(await ask(`unknown${i}@example.com`, `127.0.2.${i + 1}`))
    }
  } finally {
    await web.stop()
  }
  const known = times.known.slice(10).sort((a, b) => a - b)
  const unknown = times.unknown.slice(10).sort((a, b) => a - b)
  return {
    'known address p50 (ms)': round(percentile(known, 50), 2),
    'unknown address p50 (ms)': round(percentile(unknown, 50), 2),
    'known address p95 (ms)': round(percentile(known, 95), 2),
    'unknown address p95 (ms)': round(percentile(unknown, 95), 2),
    'p50 known / unknown': round(percentile(known, 50) / percentile(unknown, 50), 2),
  }
}
