import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { simpleParser } from 'mailparser'
import { deliverEmail } from '#platform/email.server.ts'
import { action as forgotPassword } from '#app/routes/api.auth.forgot-password.ts'
import { action as login } from '#app/routes/api.auth.login.ts'
import { action as register } from '#app/routes/api.auth.register.ts'
import { action as resetPassword } from '#app/routes/api.auth.reset-password.ts'
import { action as sendCode } from '#app/routes/api.auth.send-verification-code.ts'
import { loader as emailVerification } from '#app/routes/api.config.email-verification.ts'
import { callRoute, makeRequest } from '#tests/helpers/app.ts'
import { startWorker } from '#tests/helpers/worker-process.ts'
import { codeFrom, startSmtpCatcher } from '#tests/fakes/smtp.ts'

// This file runs with email verification on and a media/outbox folder of its own; the worker
// process sends through a real SMTP server started here.
process.env.EMAIL_VERIFICATION = 'on'
process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'pawtrait-email-'))
const smtp = await startSmtpCatcher()
const worker = startWorker({ SMTP_URL: smtp.url, MAIL_FROM: 'Pawtrait <codes@pawtrait.test>' })

beforeAll(() => worker.ready())
afterAll(async () => {
  await worker.stop()
  await smtp.close()
})

async function call(handler: Parameters<typeof callRoute>[0], url: string, json: unknown) {
  const response = await callRoute(handler, makeRequest(url, { json }))
  return { status: response.status, body: await response.json() }
}

test('the config reports verification on, and registration then needs a 6-digit code', async () => {
  expect(await (await callRoute(emailVerification, makeRequest('/api/config/email-verification'))).json()).toEqual({
    enabled: true,
  })
  const base = { name: 'Rex', email: 'rex-nocode@example.com', password: 'secret-pass' }
  for (const verificationCode of [undefined, 'NO_VERIFICATION_CODE_NEEDED', '12345']) {
    expect(await call(register, '/api/auth/register', { ...base, verificationCode })).toMatchObject({
      status: 400,
      body: { message: 'Verification code must be 6 digits' },
    })
  }
})

test('registration: the code goes out by SMTP from the worker and registers the account once', async () => {
  expect(await call(sendCode, '/api/auth/send-verification-code', { email: 'new-owner@example.com' })).toMatchObject({
    status: 200,
  })
  const mail = await smtp.waitForMessage('new-owner@example.com')
  expect(mail.subject).toBe('Your Pawtrait verification code')
  expect(mail.from?.text).toContain('codes@pawtrait.test')
  const code = codeFrom(mail)

  const form = { name: 'New Owner', email: 'new-owner@example.com', password: 'secret-pass' }
  const wrongCode = code === '999999' ? '000000' : '999999'
  expect(await call(register, '/api/auth/register', { ...form, verificationCode: wrongCode })).toMatchObject({
    status: 400,
    body: { message: 'Invalid verification code, please check and try again' },
  })
  const created = await call(register, '/api/auth/register', { ...form, verificationCode: code })
  expect(created.status).toBe(201)
  expect(created.body.user).toMatchObject({ email: 'new-owner@example.com', credits: 10 })
  expect(created.body.token).toEqual(expect.any(String))
})

test('password reset: the reset code comes by email and sets the new password', async () => {
  await call(sendCode, '/api/auth/send-verification-code', { email: 'forgetful@example.com' })
  const registrationCode = codeFrom(await smtp.waitForMessage('forgetful@example.com'))
  const account = { name: 'Forgetful', email: 'forgetful@example.com', password: 'old-password' }
  expect((await call(register, '/api/auth/register', { ...account, verificationCode: registrationCode })).status).toBe(
    201,
  )

  expect(await call(forgotPassword, '/api/auth/forgot-password', { email: 'forgetful@example.com' })).toMatchObject({
    status: 200,
  })
  const mail = await smtp.waitForMessage('forgetful@example.com', 'Your Pawtrait password reset code')
  const reset = await call(resetPassword, '/api/auth/reset-password', {
    email: 'forgetful@example.com',
    verificationCode: codeFrom(mail),
    password: 'new-password',
    confirmPassword: 'new-password',
  })
  expect(reset.status).toBe(200)
  expect(
    (await call(login, '/api/auth/login', { email: 'forgetful@example.com', password: 'new-password' })).status,
  ).toBe(200)
})

test('without SMTP_URL a message is written as an .eml file under DATA_DIR/outbox', async () => {
  const where = await deliverEmail({
    to: 'reader@example.com',
    subject: 'Local copy',
    text: 'Your verification code is 424242',
  })
  const file = where.replace(/^written to /, '')
  expect(path.dirname(file)).toBe(path.join(process.env.DATA_DIR!, 'outbox'))
  const parsed = await simpleParser(fs.readFileSync(file))
  expect(parsed.subject).toBe('Local copy')
  expect(codeFrom(parsed)).toBe('424242')
})
