import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { systemStatus } from '#domain/operator/system-status.server.ts'
import { getDb } from '#platform/db.server.ts'
import { codeFrom, startSmtpCatcher } from '#tests/fakes/smtp.ts'
import { petPhoto } from '#tests/helpers/generation.ts'
import { startWebProcess } from '#tests/helpers/web-process.ts'
import { startWorker, waitFor } from '#tests/helpers/worker-process.ts'

// A full run — sign-up with an emailed code, login, a password reset by code, a generation, links
// carrying a session token, a CSP report from a page whose URL holds that token — through the real
// web and worker processes as on Fly. Every line either process wrote is kept, and none of the
// tokens, codes or passwords used appears in them, nor in the stored CSP reports or the status page.

process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'pawtrait-secrets-'))
const smtp = await startSmtpCatcher()
const shared = { SMTP_URL: smtp.url, EMAIL_VERIFICATION: 'on', IMAGE_PROVIDER: 'instant', LOG_LEVEL: 'debug' }
const worker = startWorker(shared)
let web: Awaited<ReturnType<typeof startWebProcess>>

beforeAll(async () => {
  ;[web] = await Promise.all([startWebProcess({ ...shared, TRUST_PROXY: 'fly' }), worker.ready()])
})
afterAll(async () => {
  await Promise.all([web?.stop(), worker.stop()])
  await smtp.close()
})

let requests = 0
async function call(pathname: string, init: { json?: unknown; token?: string; body?: FormData; method?: string } = {}) {
  const headers: Record<string, string> = { 'fly-client-ip': `192.0.2.${++requests}` }
  if (init.json !== undefined) headers['content-type'] = 'application/json'
  if (init.token) headers['x-auth-token'] = init.token
  const response = await fetch(`${web.origin}${pathname}`, {
    method: init.method ?? (init.json !== undefined || init.body ? 'POST' : 'GET'),
    headers,
    body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : null }
}

test('no token, code or password of a full run reaches a log line, a stored CSP report or the status page', async () => {
  const email = 'careful-owner@example.com'
  const password = 'first-Password-9f3k'
  const newPassword = 'second-Password-2q8z'
  const secrets: string[] = [password, newPassword]

  expect((await call('/api/auth/send-verification-code', { json: { email } })).status).toBe(200)
  const signUpCode = codeFrom(await smtp.waitForMessage(email))
  secrets.push(signUpCode)
  const created = await call('/api/auth/register', {
    json: { name: 'Careful', email, password, verificationCode: signUpCode },
  })
  expect(created.status).toBe(201)
  const signUpToken: string = created.body.token
  secrets.push(signUpToken)

  const loggedIn = await call('/api/auth/login', { json: { email, password } })
  expect(loggedIn.status).toBe(200)
  const token: string = loggedIn.body.token
  secrets.push(token)
  expect((await call('/api/auth/login', { json: { email, password: `${password}-wrong` } })).status).toBe(401)

  expect((await call('/api/auth/forgot-password', { json: { email } })).status).toBe(200)
  const resetCode = codeFrom(await smtp.waitForMessage(email, 'Your Pawtrait password reset code'))
  secrets.push(resetCode)
  const reset = await call('/api/auth/reset-password', {
    json: { email, verificationCode: resetCode, password: newPassword, confirmPassword: newPassword },
  })
  expect(reset.status).toBe(200)
  const again = await call('/api/auth/login', { json: { email, password: newPassword } })
  expect(again.status).toBe(200)
  secrets.push(again.body.token)

  const form = new FormData()
  form.append('images', new File([new Uint8Array(await petPhoto())], 'pet.jpg', { type: 'image/jpeg' }))
  form.append('style', 'general')
  const submitted = await call('/api/async-image/generate', { body: form, token: again.body.token })
  expect(submitted.status).toBe(200)
  const task = () => call(`/api/async-image/task/${submitted.body.taskId}`, { token: again.body.token })
  await waitFor(async () => JSON.stringify((await task()).body).includes('completed'), {
    timeout: 30_000,
    interval: 200,
  })

  // Links as emails and the OAuth callback make them, asked for as they are (one a 404).
  await call(`/api/auth/me?token=${token}&code=${signUpCode}`, { token })
  await call(`/api/no-such-thing?token=${token}#code=${resetCode}`)
  // A page whose URL holds the session token, reported by the browser (an extension's script).
  const report = await fetch(`${web.origin}/csp-report`, {
    method: 'POST',
    headers: { 'content-type': 'application/csp-report', 'fly-client-ip': '192.0.2.250' },
    body: JSON.stringify({
      'csp-report': {
        'document-uri': `https://pawtrait.example/auth/callback?token=${token}`,
        referrer: `https://pawtrait.example/unsubscribe?token=${signUpToken}`,
        'blocked-uri': `https://extension.example/inject.js?user=${token}#${resetCode}`,
        'source-file': `https://pawtrait.example/auth/callback?token=${token}`,
        'effective-directive': 'script-src-elem',
        'violated-directive': 'script-src-elem',
        'original-policy': "script-src 'self'",
        disposition: 'enforce',
      },
    }),
  })
  expect(report.status).toBe(204)
  await waitFor(() => web.output.join('').includes('CSP violation'))

  await Promise.all([web.stop(), worker.stop()])
  const logs = [...web.output, ...worker.output].join('')
  expect(logs).toContain('"path":"/api/auth/login"') // the request log is in what was read
  const stored = JSON.stringify(await getDb().selectFrom('csp_reports').selectAll().execute())
  expect(stored).toContain('/auth/callback')
  const statusPage = JSON.stringify(await systemStatus(getDb()))
  for (const secret of secrets) {
    const alone = new RegExp(`(?<![\\w-])${secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`)
    expect(alone.test(logs), `${secret} in the logs`).toBe(false)
    expect(alone.test(stored), `${secret} in the stored CSP reports`).toBe(false)
    expect(alone.test(statusPage), `${secret} on the status page`).toBe(false)
  }
})
