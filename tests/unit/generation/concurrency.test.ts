import { createLimiter } from '#domain/limits/concurrency.server.ts'

test('at most `limit` jobs run at once, the rest in arrival order, and a failure frees its turn', async () => {
  const limit = createLimiter(2)
  let running = 0
  let peak = 0
  const order: number[] = []
  const job = (id: number, fail = false) =>
    limit(async () => {
      running += 1
      peak = Math.max(peak, running)
      await new Promise((resolve) => setTimeout(resolve, 10))
      running -= 1
      order.push(id)
      if (fail) throw new Error(`job ${id} failed`)
      return id
    })
  const results = await Promise.allSettled([job(1), job(2, true), job(3), job(4), job(5)])
  expect(peak).toBe(2)
  expect(order).toEqual([1, 2, 3, 4, 5])
  expect(results.map((result) => result.status)).toEqual([
    'fulfilled',
    'rejected',
    'fulfilled',
    'fulfilled',
    'fulfilled',
  ])
  expect(await job(6)).toBe(6)
})
