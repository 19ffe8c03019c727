import { spawnSync } from 'node:child_process'

function runScript(script: string, env: Record<string, string>) {
  const result = spawnSync(process.execPath, [script], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  })
  return { code: result.status, output: result.stdout + result.stderr }
}

test('a malformed variable stops the web process with a message naming it', () => {
  const { code, output } = runScript('server/index.ts', { PORT: 'eighty' })
  expect(code).toBe(1)
  expect(output).toContain('Invalid environment configuration')
  expect(output).toContain('PORT')
  expect(output).not.toMatch(/\n\s+at /) // no stack trace
})

test('an unreachable database gives a clear message and a non-zero exit', () => {
  for (const script of ['scripts/migrate.ts', 'worker/index.ts']) {
    const { code, output } = runScript(script, { DATABASE_URL: 'postgres://nobody:nothing@127.0.0.1:9/none' })
    expect(code).toBe(1)
    expect(output).toContain('Cannot reach the database')
    expect(output).not.toMatch(/\n\s+at /)
  }
})

test('the worker refuses to start without DATABASE_URL', () => {
  const { code, output } = runScript('worker/index.ts', { DATABASE_URL: '' })
  expect(code).toBe(1)
  expect(output).toContain('DATABASE_URL')
})

test('in production the web, the worker and the migrations refuse to start without PUBLIC_URL, naming it', () => {
  for (const script of ['server/index.ts', 'worker/index.ts', 'scripts/migrate.ts']) {
    const { code, output } = runScript(script, { NODE_ENV: 'production', SESSION_SECRET: 'secret', PUBLIC_URL: '' })
    expect(code, script).toBe(1)
    expect(output).toContain('PUBLIC_URL: is required in production')
    expect(output).not.toMatch(/\n\s+at /)
  }
})
