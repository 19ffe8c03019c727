import { spawn } from 'node:child_process'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

// Log lines are gathered for a turn of the event loop and written at its end (platform/logger.server.ts):
// what is still waiting when the process exits is written then, so no line is lost.

async function linesOf(exit: string) {
  const logger = pathToFileURL(path.resolve('platform/logger.server.ts')).href
  const script = `
    const { initLogging } = await import(${JSON.stringify(logger)})
    const logger = initLogging('web')
    for (let i = 0; i < 3000; i++) logger.info({ i }, 'line')
    ${exit}`
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => (output += String(chunk)))
  await new Promise((resolve) => child.once('close', resolve))
  return output
    .split('\n')
    .filter((line) => line.includes('"msg":"line"'))
    .map((line) => (JSON.parse(line) as { i: number }).i)
}

const inOrder = Array.from({ length: 3000 }, (_, i) => i)

test('the lines logged just before process.exit all reach stdout, in order', async () => {
  expect(await linesOf('process.exit(0)')).toEqual(inOrder)
})

test('the lines logged before an uncaught error all reach stdout, in order', async () => {
  expect(await linesOf("throw new Error('boom')")).toEqual(inOrder)
})
