import fs from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import { issueVerificationCode } from '#domain/accounts/verification-code.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getSessionCookie } from '#domain/sessions/auth.server.ts'
import { action as forgotPassword } from '#app/routes/api.auth.forgot-password.ts'
import { loader as google } from '#app/routes/api.auth.google.ts'
import { action as login } from '#app/routes/api.auth.login.ts'
import { loader as me } from '#app/routes/api.auth.me.ts'
import { action as register } from '#app/routes/api.auth.register.ts'
import { action as resetPassword } from '#app/routes/api.auth.reset-password.ts'
import { action as sendCode } from '#app/routes/api.auth.send-verification-code.ts'
import { action as updateAvatar } from '#app/routes/api.auth.update-avatar.ts'
import { action as updateProfile } from '#app/routes/api.auth.update-profile.ts'
import { loader as emailVerification } from '#app/routes/api.config.email-verification.ts'
import { CLIENT_ADDRESS_HEADER } from '#platform/client-address.server.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'
import { jobHelpers, queuedJobs } from '#tests/helpers/jobs.ts'
import { sendPasswordReset } from '#worker/jobs/send-password-reset.ts'

type Handler = Parameters<typeof callRoute>[0]

let ipCounter = 0
/** A client address of its own, so that one test's failures never count against another's limits. */
const freshIp = () => ({ [CLIENT_ADDRESS_HEADER]: `203.0.113.${++ipCounter}` })

async function postFrom(ip: string, handler: Handler, url: string, json: unknown) {
  const response = await callRoute(handler, makeRequest(url, { json, headers: { [CLIENT_ADDRESS_HEADER]: ip } }))
  return { status: response.status, body: await response.json() }
}

async function post(handler: Handler, url: string, json: unknown, options: { token?: string; method?: string } = {}) {
  const response = await callRoute(handler, makeRequest(url, { json, headers: freshIp(), ...options }))
  return { status: response.status, body: await response.json(), headers: response.headers }
}

const malformed = (url: string) =>
  makeRequest(url, { method: 'POST', body: '{"email": ', headers: { 'content-type': 'application/json' } })

describe('POST /api/auth/login', () => {
  test('answers a token and the user, sets the page cookie and records lastLogin', async () => {
    const { user } = await createTestUser({ email: 'login-ok@example.com', password: 'secret-pass' })
    const { status, body, headers } = await post(login, '/api/auth/login', {
      email: ' Login-OK@example.com ',
      password: 'secret-pass',
    })
    expect(status).toBe(200)
    expect(body.user).toMatchObject({ _id: user.id, email: 'login-ok@example.com', role: 'user', credits: 10 })
    expect(body.user.lastLogin).not.toBeNull()
    expect(await getSessionCookie().parse(headers.get('set-cookie'))).toBe(body.token)

    const answer = await callRoute(me, makeRequest('/api/auth/me', { token: body.token }))
    expect(await answer.json()).toMatchObject({ user: { _id: user.id, name: user.name } })
  })

  test('refuses a wrong password and an unknown email with the same message', async () => {
    await createTestUser({ email: 'login-wrong@example.com', password: 'secret-pass' })
    const wrong = await post(login, '/api/auth/login', { email: 'login-wrong@example.com', password: 'nope-nope' })
    const unknown = await post(login, '/api/auth/login', { email: 'nobody@example.com', password: 'nope-nope' })
    expect(wrong).toMatchObject({ status: 401, body: { message: 'Invalid email or password' } })
    expect(unknown).toMatchObject({ status: 401, body: { message: 'Invalid email or password' } })
    expect(wrong.body.token).toBeUndefined()
  })

  test.each([{}, { email: 'a@example.com' }, { password: 'secret-pass' }, { email: '  ', password: '' }])(
    'answers 400 "Please enter email and password" for %j',
    async (json) => {
      expect(await post(login, '/api/auth/login', json)).toMatchObject({
        status: 400,
        body: { message: 'Please enter email and password' },
      })
    },
  )

  test('answers 400 for malformed JSON', async () => {
    const response = await callRoute(login, malformed('/api/auth/login'))
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ message: 'Malformed JSON body' })
  })

  test('refuses a banned user, and a banned user’s session stops working at once', async () => {
    const { user, token } = await createTestUser({ email: 'banned@example.com', password: 'secret-pass' })
    await getDb().updateTable('users').set({ is_banned: true }).where('id', '=', user.id).execute()
    expect(
      await post(login, '/api/auth/login', { email: 'banned@example.com', password: 'secret-pass' }),
    ).toMatchObject({
      status: 403,
      body: { message: 'Your account has been banned, please contact the administrator' },
    })
    const answer = await callRoute(me, makeRequest('/api/auth/me', { token }))
    expect(answer.status).toBe(401)
    expect(await answer.json()).toEqual({ message: 'Authentication expired, please log in again' })
  })

  test("a stranger's guesses hold the account back (429), never the owner's own address", async () => {
    await createTestUser({ email: 'brute@example.com', password: 'secret-pass' })
    const from = (ip: string, password: string) =>
      postFrom(ip, login, '/api/auth/login', { email: 'brute@example.com', password })
    // The owner has signed in from their own address before.
    expect((await from('198.51.100.67', 'secret-pass')).status).toBe(200)
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await from('198.51.100.66', `guess-${attempt}`)).status).toBe(401)
    }
    const held = await from('198.51.100.66', 'secret-pass')
    expect(held.status).toBe(429)
    expect(held.body.message).toMatch(/^Too many failed sign-ins to this account, please try again in \d+ seconds?$/)
    expect((await from('198.51.100.68', 'secret-pass')).status).toBe(429)
    expect((await from('198.51.100.67', 'secret-pass')).status).toBe(200)
  })

  test("limits failed attempts per account and address (429), even from the owner's own address", async () => {
    await createTestUser({ email: 'typo@example.com', password: 'secret-pass' })
    const from = (password: string) =>
      postFrom('198.51.100.69', login, '/api/auth/login', { email: 'typo@example.com', password })
    expect((await from('secret-pass')).status).toBe(200)
    for (let attempt = 0; attempt < 10; attempt++) expect((await from(`typo-${attempt}`)).status).toBe(401)
    const limited = await from('secret-pass')
    expect(limited.status).toBe(429)
    expect(limited.body.message).toMatch(/^Too many attempts, please try again in \d+ minutes?$/)
  })

  test('limits failed attempts per IP address across accounts (429)', async () => {
    const headers = { [CLIENT_ADDRESS_HEADER]: '198.51.100.7' }
    const attempt = (email: string) =>
      callRoute(login, makeRequest('/api/auth/login', { json: { email, password: 'wrong-pass' }, headers }))
    for (let i = 0; i < 30; i++) expect((await attempt(`spray${i}@example.com`)).status).toBe(401)
    expect((await attempt('spray-last@example.com')).status).toBe(429)
    // Another address is not affected.
    expect(
      (await post(login, '/api/auth/login', { email: 'spray-last@example.com', password: 'x-wrong' })).status,
    ).toBe(401)
  })
})

describe('POST /api/auth/register (email verification off)', () => {
  test('creates the user with the new-user bonus as an earn ledger entry and signs them in', async () => {
    const { status, body, headers } = await post(register, '/api/auth/register', {
      name: ' Rex Owner ',
      email: 'Rex@Example.com',
      password: 'secret-pass',
      verificationCode: 'NO_VERIFICATION_CODE_NEEDED',
    })
    expect(status).toBe(201)
    expect(body.user).toMatchObject({ name: 'Rex Owner', email: 'rex@example.com', role: 'user', credits: 10 })
    expect(headers.get('set-cookie')).toContain('pawtrait_session=')
    const ledger = await getDb()
      .selectFrom('credit_transactions')
      .select(['type', 'amount'])
      .where('user_id', '=', body.user._id)
      .execute()
    expect(ledger).toEqual([{ type: 'earn', amount: 10 }])
    const relogin = await post(login, '/api/auth/login', { email: 'rex@example.com', password: 'secret-pass' })
    expect(relogin.status).toBe(200)
  })

  test('accepts an empty code when verification is off', async () => {
    const result = await post(register, '/api/auth/register', {
      name: 'Nocode',
      email: 'nocode@example.com',
      password: 'secret-pass',
    })
    expect(result.status).toBe(201)
  })

  test.each([
    [{ email: 'a@example.com', password: 'secret-pass' }, 'Please fill in all required fields'],
    [{ name: 'A', password: 'secret-pass' }, 'Please fill in all required fields'],
    [{ name: 'A', email: 'a@example.com', password: '' }, 'Please fill in all required fields'],
    [{ name: 'A', email: 'not-an-email', password: 'secret-pass' }, 'Please enter a valid email address'],
    [{ name: 'A', email: 'a@example.com', password: '12345' }, 'Password must be at least 6 characters long'],
    [
      { name: 'x'.repeat(51), email: 'a@example.com', password: 'secret-pass' },
      'Username must be at most 50 characters long',
    ],
  ])('answers 400 for %j: %s', async (json, message) => {
    expect(await post(register, '/api/auth/register', json)).toMatchObject({ status: 400, body: { message } })
  })

  test('refuses an email that is already registered, whatever its case', async () => {
    await createTestUser({ email: 'taken@example.com' })
    expect(
      await post(register, '/api/auth/register', { name: 'B', email: 'TAKEN@example.com', password: 'secret-pass' }),
    ).toMatchObject({ status: 409, body: { message: 'This email is already registered' } })
  })

  test('answers 400 for malformed JSON', async () => {
    expect((await callRoute(register, malformed('/api/auth/register'))).status).toBe(400)
  })
})

test('GET /api/config/email-verification answers whether codes are required', async () => {
  const response = await callRoute(emailVerification, makeRequest('/api/config/email-verification'))
  expect(await response.json()).toEqual({ enabled: false })
})

test('GET /api/auth/me answers 401 without a session', async () => {
  const response = await callRoute(me, makeRequest('/api/auth/me', { token: 'forged-token' }))
  expect(response.status).toBe(401)
  expect(await response.json()).toEqual({ message: 'Authentication expired, please log in again' })
})

describe('POST /api/auth/send-verification-code', () => {
  test('queues the code email, and refuses a second one within the minute (429)', async () => {
    const first = await post(sendCode, '/api/auth/send-verification-code', { email: 'New.Person@example.com' })
    expect(first).toMatchObject({ status: 200, body: { message: 'Verification code sent, please check your email' } })
    const jobs = await queuedJobs<{ to: string; text: string }>('send_email')
    const mail = jobs.find((job) => job.to === 'new.person@example.com')
    expect(mail?.text).toMatch(/Your verification code is \d{6}/)
    const stored = await getDb()
      .selectFrom('verification_codes')
      .selectAll()
      .where('email', '=', 'new.person@example.com')
      .execute()
    expect(stored).toHaveLength(1)
    // Stored hashed: the emailed code is nowhere in the row.
    expect(JSON.stringify(stored[0])).not.toContain(/\d{6}/.exec(mail?.text ?? '')?.[0])

    const again = await post(sendCode, '/api/auth/send-verification-code', { email: 'new.person@example.com' })
    expect(again.status).toBe(429)
    expect(again.body.message).toMatch(/^Too many attempts/)
  })

  test.each([{}, { email: 'no-at-sign' }, { email: 42 }])(
    'answers 400 "Please enter a valid email address" for %j',
    async (json) => {
      expect(await post(sendCode, '/api/auth/send-verification-code', json)).toMatchObject({
        status: 400,
        body: { message: 'Please enter a valid email address' },
      })
    },
  )

  test('refuses an address that already has an account', async () => {
    await createTestUser({ email: 'has-account@example.com' })
    expect(
      await post(sendCode, '/api/auth/send-verification-code', { email: 'has-account@example.com' }),
    ).toMatchObject({
      status: 409,
      body: { message: 'This email is already registered' },
    })
  })

  test('answers 400 for malformed JSON', async () => {
    expect((await callRoute(sendCode, malformed('/api/auth/send-verification-code'))).status).toBe(400)
  })
})

describe('POST /api/auth/forgot-password', () => {
  test('answers the same for known and unknown emails, and emails a code only to the account', async () => {
    await createTestUser({ email: 'forgetful@example.com' })
    const known = await post(forgotPassword, '/api/auth/forgot-password', { email: 'forgetful@example.com' })
    const unknown = await post(forgotPassword, '/api/auth/forgot-password', { email: 'ghost@example.com' })
    expect(known).toMatchObject({ status: 200 })
    expect(unknown.status).toBe(known.status)
    expect(unknown.body).toEqual(known.body)
    // The request did the same work for both: one job each; the job looks the account up.
    const jobs = await queuedJobs<{ email: string }>('send_password_reset')
    expect(jobs).toEqual([{ email: 'forgetful@example.com' }, { email: 'ghost@example.com' }])
    for (const job of jobs) await sendPasswordReset(job, jobHelpers(1))
    const recipients = (await queuedJobs<{ to: string }>('send_email')).map((job) => job.to)
    expect(recipients).toContain('forgetful@example.com')
    expect(recipients).not.toContain('ghost@example.com')
  })

  test.each([
    [{}, 'Please enter your email address'],
    [{ email: 'nope' }, 'Please enter a valid email address'],
  ])('answers 400 for %j: %s', async (json, message) => {
    expect(await post(forgotPassword, '/api/auth/forgot-password', json)).toMatchObject({
      status: 400,
      body: { message },
    })
  })

  test('answers 400 for malformed JSON', async () => {
    expect((await callRoute(forgotPassword, malformed('/api/auth/forgot-password'))).status).toBe(400)
  })
})

describe('POST /api/auth/reset-password', () => {
  const reset = (json: unknown) => post(resetPassword, '/api/auth/reset-password', json)

  test('sets the new password with a valid code, signs out every session, and the code works once', async () => {
    const { token } = await createTestUser({ email: 'resetter@example.com', password: 'old-password' })
    const code = await issueVerificationCode(getDb(), 'resetter@example.com', 'reset')
    const input = {
      email: 'resetter@example.com',
      verificationCode: code,
      password: 'new-password',
      confirmPassword: 'new-password',
    }
    expect(await reset(input)).toMatchObject({ status: 200, body: { message: expect.stringMatching(/reset/) } })

    expect((await callRoute(me, makeRequest('/api/auth/me', { token }))).status).toBe(401)
    expect(
      (await post(login, '/api/auth/login', { email: 'resetter@example.com', password: 'old-password' })).status,
    ).toBe(401)
    expect(
      (await post(login, '/api/auth/login', { email: 'resetter@example.com', password: 'new-password' })).status,
    ).toBe(200)
    expect((await reset({ ...input, password: 'third-pass', confirmPassword: 'third-pass' })).status).toBe(400)
  })

  test('a code allows at most 5 wrong tries; after them even the right code is refused', async () => {
    await createTestUser({ email: 'guesser@example.com' })
    const code = await issueVerificationCode(getDb(), 'guesser@example.com', 'reset')
    const wrong = code === '000000' ? '111111' : '000000'
    const attempt = (verificationCode: string) =>
      reset({
        email: 'guesser@example.com',
        verificationCode,
        password: 'new-password',
        confirmPassword: 'new-password',
      })
    for (let i = 0; i < 5; i++) {
      const answer = await attempt(wrong)
      expect(answer.status).toBe(400)
    }
    expect(await attempt(code)).toMatchObject({
      status: 400,
      body: { message: 'Too many incorrect attempts, please request a new verification code' },
    })
  })

  test('refuses an expired code', async () => {
    await createTestUser({ email: 'late@example.com' })
    const code = await issueVerificationCode(getDb(), 'late@example.com', 'reset')
    await getDb()
      .updateTable('verification_codes')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('email', '=', 'late@example.com')
      .execute()
    expect(
      await reset({
        email: 'late@example.com',
        verificationCode: code,
        password: 'new-password',
        confirmPassword: 'new-password',
      }),
    ).toMatchObject({
      status: 400,
      body: { message: 'The verification code has expired or is invalid, please request a new one' },
    })
  })

  test('limits code checks per account and address (429)', async () => {
    await createTestUser({ email: 'checker@example.com' })
    const attempt = (ip: string) =>
      postFrom(ip, resetPassword, '/api/auth/reset-password', {
        email: 'checker@example.com',
        verificationCode: '123456',
        password: 'new-password',
        confirmPassword: 'new-password',
      })
    for (let i = 0; i < 10; i++) expect((await attempt('198.51.100.70')).status).toBe(400)
    expect((await attempt('198.51.100.70')).status).toBe(429)
    expect((await attempt('198.51.100.71')).status).toBe(400)
  })

  const valid = {
    email: 'a@example.com',
    verificationCode: '123456',
    password: 'new-password',
    confirmPassword: 'new-password',
  }
  test.each([
    [{ ...valid, email: '' }, 'Please enter your email address'],
    [{ ...valid, verificationCode: undefined }, 'Please enter the verification code'],
    [{ ...valid, verificationCode: '12ab56' }, 'Verification code must be 6 digits'],
    [{ ...valid, confirmPassword: '' }, 'Please enter both password fields'],
    [{ ...valid, password: undefined }, 'Please enter both password fields'],
    [{ ...valid, confirmPassword: 'other-password' }, 'Passwords do not match'],
    [{ ...valid, password: 'short', confirmPassword: 'short' }, 'Password must be at least 6 characters long'],
  ])('answers 400 for %j: %s', async (json, message) => {
    expect(await reset(json)).toMatchObject({ status: 400, body: { message } })
  })

  test('answers 400 for malformed JSON', async () => {
    expect((await callRoute(resetPassword, malformed('/api/auth/reset-password'))).status).toBe(400)
  })
})

describe('PUT /api/auth/update-profile', () => {
  const put = (json: unknown, token?: string, method = 'PUT') =>
    post(updateProfile, '/api/auth/update-profile', json, { token, method })

  test('renames the user', async () => {
    const { token } = await createTestUser()
    expect(await put({ name: '  Biscuit  ' }, token)).toMatchObject({
      status: 200,
      body: { message: 'Profile updated successfully', user: { name: 'Biscuit' } },
    })
  })

  test('a new password keeps this session and signs out the others', async () => {
    const { user, token } = await createTestUser({ email: 'changer@example.com', password: 'old-password' })
    const other = await post(login, '/api/auth/login', { email: 'changer@example.com', password: 'old-password' })
    expect(
      (await put({ name: user.name, password: 'brand-new-pass', currentPassword: 'old-password' }, token)).status,
    ).toBe(200)
    expect((await callRoute(me, makeRequest('/api/auth/me', { token }))).status).toBe(200)
    expect((await callRoute(me, makeRequest('/api/auth/me', { token: other.body.token }))).status).toBe(401)
    expect(
      (await post(login, '/api/auth/login', { email: 'changer@example.com', password: 'brand-new-pass' })).status,
    ).toBe(200)
  })

  test('a new password needs the current one, unless the account has none', async () => {
    const { user, token } = await createTestUser({ email: 'careful@example.com', password: 'old-password' })
    const change = { name: user.name, password: 'taken-over' }
    expect(await put(change, token)).toMatchObject({
      status: 400,
      body: { message: 'Please enter your current password to set a new one' },
    })
    expect(await put({ ...change, currentPassword: 'a-guess' }, token)).toMatchObject({
      status: 400,
      body: { message: 'The current password is incorrect' },
    })
    expect(
      (await post(login, '/api/auth/login', { email: 'careful@example.com', password: 'old-password' })).status,
    ).toBe(200)

    // Wrong current passwords count as failed logins of the account from that address.
    const guess = (currentPassword: string) =>
      callRoute(
        updateProfile,
        makeRequest('/api/auth/update-profile', {
          method: 'PUT',
          token,
          json: { ...change, currentPassword },
          headers: { [CLIENT_ADDRESS_HEADER]: '198.51.100.90' },
        }),
      )
    for (let i = 0; i < 10; i++) expect((await guess(`guess-${i}`)).status).toBe(400)
    expect((await guess('old-password')).status).toBe(429)

    // A Google account has no password to confirm: it may set one.
    const { user: googleUser, token: googleToken } = await createTestUser({ email: 'google-only@example.com' })
    await getDb().updateTable('users').set({ password_hash: null }).where('id', '=', googleUser.id).execute()
    expect((await put({ name: googleUser.name, password: 'first-password' }, googleToken)).status).toBe(200)
    expect(
      (await post(login, '/api/auth/login', { email: 'google-only@example.com', password: 'first-password' })).status,
    ).toBe(200)
  })

  test.each([
    [{ name: '   ' }, 'Please enter a username'],
    [{}, 'Please enter a username'],
    [{ name: 'Rex', password: '123' }, 'Password must be at least 6 characters long'],
    [{ name: 'Rex', email: 'someone-else@example.com' }, 'Email cannot be changed'],
  ])('answers 400 for %j: %s', async (json, message) => {
    const { token } = await createTestUser()
    expect(await put(json, token)).toMatchObject({ status: 400, body: { message } })
  })

  test('needs a session, the PUT method and well-formed JSON', async () => {
    const { token } = await createTestUser()
    expect((await put({ name: 'Rex' })).status).toBe(401)
    expect((await put({ name: 'Rex' }, token, 'POST')).status).toBe(405)
    const response = await callRoute(
      updateProfile,
      makeRequest('/api/auth/update-profile', {
        method: 'PUT',
        token,
        body: '{oops',
        headers: { 'content-type': 'application/json' },
      }),
    )
    expect(response.status).toBe(400)
  })
})

describe('POST /api/auth/update-avatar', () => {
  const dataUrl = (bytes: Buffer, type = 'image/png') => `data:${type};base64,${bytes.toString('base64')}`
  const upload = (profilePicture: unknown, token?: string) =>
    post(updateAvatar, '/api/auth/update-avatar', { profilePicture }, { token })

  test('stores a square WebP avatar made from the picture and replaces the previous one', async () => {
    const { token } = await createTestUser()
    const photo = await sharp({ create: { width: 600, height: 400, channels: 3, background: '#884422' } })
      .png()
      .toBuffer()
    const first = await upload(dataUrl(photo), token)
    expect(first.status).toBe(200)
    expect(first.body.message).toBe('Avatar updated successfully')
    expect(first.body.profilePicture).toMatch(/^\/media\/avatars\/[0-9a-f-]+\/\d{4}\/\d{2}\/[0-9a-f]{64}\.webp$/)
    expect(first.body.user.profilePicture).toBe(first.body.profilePicture)
    const firstFile = path.join(getEnv().DATA_DIR, 'media', first.body.profilePicture.replace('/media/', ''))
    expect(await sharp(fs.readFileSync(firstFile)).metadata()).toMatchObject({
      format: 'webp',
      width: 256,
      height: 256,
    })

    const other = await sharp({ create: { width: 50, height: 50, channels: 3, background: '#224488' } })
      .jpeg()
      .toBuffer()
    const second = await upload(dataUrl(other, 'image/jpeg'), token)
    expect(second.body.profilePicture).not.toBe(first.body.profilePicture)
    expect(fs.existsSync(firstFile)).toBe(false)
  })

  test.each([
    [undefined, 400, 'Please choose a picture to upload'],
    ['https://example.com/cat.png', 400, 'The picture must be an image data URL'],
    [`data:image/png;base64,${Buffer.from('<svg onload=alert(1)>').toString('base64')}`, 400, /^Unsupported file type/],
  ])('refuses %s', async (profilePicture, status, message) => {
    const { token } = await createTestUser()
    const answer = await upload(profilePicture, token)
    expect(answer.status).toBe(status)
    expect(answer.body.message).toMatch(message)
  })

  test('refuses a picture over 10MB (413), and answers 401 without a session', async () => {
    const { token } = await createTestUser()
    const tooBig = await upload(`data:image/png;base64,${'A'.repeat(14 * 1024 * 1024)}`, token)
    expect(tooBig.status).toBe(413)
    expect((await upload('data:image/png;base64,AAAA')).status).toBe(401)
  })
})

test('GET /api/auth/google answers 503 when Google sign-in is not configured', async () => {
  const response = await callRoute(google, makeRequest('/api/auth/google'))
  expect(response.status).toBe(503)
  expect(await response.json()).toEqual({ message: 'Google sign-in is not configured' })
})
