import { graphileLogger, initLogging } from '#platform/logger.server.ts'
import { pathOf, redactUrlsIn, withoutQuery } from '#platform/url-redaction.ts'

// Every log line of the web and the worker (both start with initLogging) is written with the URLs
// in it cut to their paths: request lines, errors and their stacks, console.*, graphile-worker's.

test('withoutQuery and pathOf keep no query string, fragment or credentials', () => {
  expect(withoutQuery('https://user:pass@pawtrait.example/auth/callback?token=t1#code=c1')).toBe(
    'https://pawtrait.example/auth/callback',
  )
  expect(withoutQuery('/unsubscribe?token=t2')).toBe('/unsubscribe')
  expect(pathOf('https://pawtrait.example/reset?code=123456')).toBe('/reset')
  expect(pathOf('/a b?c')).toBe('/a%20b')
})

test('redactUrlsIn cuts every URL in a text and leaves the prose alone', () => {
  expect(redactUrlsIn('GET /auth/callback?token=t1 then https://x.example/a?b=c#d, done?')).toBe(
    'GET /auth/callback then https://x.example/a done?',
  )
  expect(redactUrlsIn('and/or? yes?')).toBe('and/or? yes?')
  expect(redactUrlsIn('{"m":"\\"/reset?code=123456\\" failed"}')).toBe('{"m":"\\"/reset\\" failed"}')
  expect(redactUrlsIn('"stack":"Error: https://s3.example/k.png?X-Amz-Signature=sig\\n    at f"')).toBe(
    '"stack":"Error: https://s3.example/k.png\\n    at f"',
  )
  expect(redactUrlsIn('postgres://app:hunter2@db:5432/app')).toBe('postgres://db:5432/app')
})

test('web and worker error logs pass through the same redaction as request logs', () => {
  const lines: string[] = []
  const saved = { ...console }
  try {
    const logger = initLogging('worker', { write: (line: string) => void lines.push(line) })
    logger.info({ path: '/auth/callback?token=request-token' }, 'request')
    logger.error({ err: new Error('provider answered 500 for https://api.example/v1?key=provider-key') }, 'failed')
    console.error('[api] unexpected error on', 'GET', '/unsubscribe?token=console-token', new Error('boom'))
    graphileLogger.scope({ taskIdentifier: 'send_email' }).error('could not fetch /reset?code=654321')
  } finally {
    Object.assign(console, saved)
  }
  const written = lines.join('')
  expect(lines.length).toBe(4)
  for (const secret of ['request-token', 'provider-key', 'console-token', '654321'])
    expect(written).not.toContain(secret)
  expect(written).toContain('https://api.example/v1')
  expect(written).toContain('/unsubscribe')
  expect(lines.every((line) => JSON.parse(line))).toBe(true)
})
