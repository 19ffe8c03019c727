import { spawn } from 'node:child_process'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

// The lines of one turn of the event loop are written together at its end (platform/logger.server.ts):
// what is still waiting when the process exits is written then, so no line is lost, and a quiet
// process's line is not held back.

/** A process logging `count` lines at once, then running `then`; the `i` of each line on its stdout. */
function logging(count: number, then: string) {
  const logger = pathToFileURL(path.resolve('platform/logger.server.ts')).href
  const script = `
    const { initLogging } = await import(${JSON.stringify(logger)})
    const logger = initLogging('web')
    for (let i = 0; i < ${count}; i++) logger.info({ i }, 'line')
    ${then}`
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => (output += String(chunk)))
  const lines = () =>
    output
      .split('\n')
      .filter((line) => line.includes('"msg":"line"'))
      .map((line) => (JSON.parse(line) as { i: number }).i)
  const closed = new Promise((resolve) => child.once('close', resolve))
  return { child, lines, closed }
}

const inOrder = Array.from({ length: 3000 }, (_, i) => i)

test('the lines logged just before process.exit all reach stdout, in order', async () => {
  const { lines, closed } = logging(3000, 'process.exit(0)')
  await closed
  expect(lines()).toEqual(inOrder)
})

test('the lines logged before an uncaught error all reach stdout, in order', async () => {
  const { lines, closed } = logging(3000, "throw new Error('boom')")
  await closed
  expect(lines()).toEqual(inOrder)
})

test('a line logged alone reaches stdout within a moment while the process runs on', async () => {
  const { child, lines, closed } = logging(1, 'setInterval(() => {}, 1000)')
  try {
    await vi.waitFor(() => expect(lines()).toEqual([0]), { timeout: 3000, interval: 20 })
  } finally {
    child.kill()
    await closed
  }
})
