import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { supervise } from '../../../scripts/supervise.ts'
import { waitFor } from '#tests/helpers/worker-process.ts'

test('a child that exits on its own is started again after a logged delay that grows while it keeps crashing', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pawtrait-supervise-'))
  const starts = path.join(dir, 'starts')
  // Notes each start, then crashes.
  const script = `require('node:fs').appendFileSync(${JSON.stringify(starts)}, Date.now() + '\\n'); process.exit(3)`
  const lines: string[] = []
  const child = supervise('crashy', ['-e', script], { baseDelayMs: 100, log: (line) => lines.push(line) })
  try {
    await waitFor(() => fs.existsSync(starts) && fs.readFileSync(starts, 'utf8').trim().split('\n').length >= 4, {
      timeout: 10_000,
    })
  } finally {
    await child.stop()
  }
  const times = fs.readFileSync(starts, 'utf8').trim().split('\n').map(Number)
  expect(lines.slice(0, 3)).toEqual([
    '[start] the crashy process exited (3); restarting it in 0.1 s',
    '[start] the crashy process exited (3); restarting it in 0.2 s',
    '[start] the crashy process exited (3); restarting it in 0.4 s',
  ])
  // The gaps between starts grow with the delays.
  expect(times[3] - times[2]).toBeGreaterThanOrEqual(400)
  expect(times[2] - times[1]).toBeGreaterThanOrEqual(200)
  fs.rmSync(dir, { recursive: true, force: true })
})

test('a stopped child is not started again', async () => {
  const lines: string[] = []
  const child = supervise('steady', ['-e', 'setInterval(() => {}, 1000)'], {
    baseDelayMs: 50,
    log: (line) => lines.push(line),
  })
  await new Promise((resolve) => setTimeout(resolve, 300))
  await child.stop()
  await new Promise((resolve) => setTimeout(resolve, 300))
  expect(child.restarts()).toBe(0)
  expect(lines).toEqual([])
})
