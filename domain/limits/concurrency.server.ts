/**
 * Runs at most `limit` jobs at a time in this process; the others wait their turn, first come
 * first served. For work whose memory adds up when many requests do it at once (image decoding).
 */
export function createLimiter(limit: number) {
  let running = 0
  const waiting: Array<() => void> = []
  return async function run<T>(job: () => Promise<T>): Promise<T> {
    if (running < limit) running += 1
    else await new Promise<void>((resolve) => waiting.push(resolve))
    try {
      return await job()
    } finally {
      // The slot passes straight to the next in line, if any.
      const next = waiting.shift()
      if (next) next()
      else running -= 1
    }
  }
}
