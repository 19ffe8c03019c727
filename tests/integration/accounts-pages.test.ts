import sharp from 'sharp'
import { findSessionUser } from '#domain/sessions/session.server.ts'
import { findUserByEmail } from '#domain/accounts/user.server.ts'
import { issueVerificationCode } from '#domain/accounts/verification-code.server.ts'
import { getSessionCookie } from '#domain/sessions/auth.server.ts'
import { getDb } from '#platform/db.server.ts'
import { loader as authCallback } from '#app/routes/auth.callback.tsx'
import { action as forgotPassword } from '#app/routes/forgot-password.tsx'
import { action as login, loader as loginPage } from '#app/routes/login.tsx'
import { action as logout } from '#app/routes/logout.ts'
import { action as profile, loader as profilePage } from '#app/routes/profile.tsx'
import { action as register } from '#app/routes/register.tsx'
import { CLIENT_ADDRESS_HEADER } from '#platform/client-address.server.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'

// The account forms as a browser without JavaScript posts them: url-encoded (or multipart) bodies,
// answered with the same messages the page renders.

type Handler = Parameters<typeof callRoute>[0]

interface ActionAnswer {
  result: { status?: string; error?: Record<string, string[] | null>; initialValue?: Record<string, unknown> }
  message?: string
  codeSentAt?: number
  step?: string
  done?: boolean
}

let ipCounter = 0
async function submit(handler: Handler, path: string, fields: Record<string, string>, token?: string) {
  const body = new URLSearchParams(fields)
  const headers = {
    'content-type': 'application/x-www-form-urlencoded',
    [CLIENT_ADDRESS_HEADER]: `192.0.2.${++ipCounter}`,
  }
  return callRoute(handler, makeRequest(path, { method: 'POST', body, headers, token }))
}

async function answer(response: Response) {
  return (await response.json()) as ActionAnswer
}

describe('/login', () => {
  test('the page hides Google when it is not configured and offers the administrator instead of a reset', async () => {
    const data = await (await callRoute(loginPage, makeRequest('/login?redirectTo=/history'))).json()
    expect(data).toMatchObject({ googleEnabled: false, forgotPasswordEnabled: false, redirectTo: '/history' })
    expect(data.contactEmail).toContain('@')
  })

  test('signs in and goes to the page asked for, with the session cookie', async () => {
    await createTestUser({ email: 'page-login@example.com', password: 'secret-pass' })
    const response = await submit(login, '/login', {
      email: 'page-login@example.com',
      password: 'secret-pass',
      redirectTo: '/history',
    })
    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toBe('/history')
    const token = await getSessionCookie().parse(response.headers.get('set-cookie'))
    expect(await findSessionUser(getDb(), token)).toMatchObject({ email: 'page-login@example.com' })
  })

  test('never redirects off the site', async () => {
    await createTestUser({ email: 'page-login2@example.com', password: 'secret-pass' })
    const response = await submit(login, '/login', {
      email: 'page-login2@example.com',
      password: 'secret-pass',
      redirectTo: '//evil.example/steal',
    })
    expect(response.headers.get('location')).toBe('/')
  })

  test('shows the required-fields message beside the fields, and a refused login above the form', async () => {
    const empty = await submit(login, '/login', { email: '', password: '' })
    expect(empty.status).toBe(400)
    expect((await answer(empty)).result.error).toMatchObject({
      email: ['Please enter email and password'],
      password: ['Please enter email and password'],
    })
    const wrong = await submit(login, '/login', { email: 'nobody@example.com', password: 'whatever' })
    expect(wrong.status).toBe(401)
    expect((await answer(wrong)).result.error).toMatchObject({ '': ['Invalid email or password'] })
  })

  test('an account held back by guesses says so above the form, with Retry-After', async () => {
    await createTestUser({ email: 'page-guessed@example.com', password: 'secret-pass' })
    for (let n = 0; n < 5; n++) await submit(login, '/login', { email: 'page-guessed@example.com', password: 'guess' })
    const held = await submit(login, '/login', { email: 'page-guessed@example.com', password: 'secret-pass' })
    expect(held.status).toBe(429)
    expect(held.headers.get('retry-after')).toMatch(/^\d+$/)
    expect((await answer(held)).result.error?.['']?.[0]).toMatch(
      /^Too many failed sign-ins to this account, please try again in \d+ seconds?$/,
    )
  })
})

describe('/register', () => {
  const filled = {
    intent: 'register',
    name: 'Page Person',
    email: 'page-person@example.com',
    verificationCode: '',
    password: 'secret-pass',
    confirmPassword: 'secret-pass',
  }

  test.each<[Partial<typeof filled>, string, string]>([
    [{ confirmPassword: 'other-pass' }, 'confirmPassword', 'Passwords do not match'],
    [{ password: '123', confirmPassword: '123' }, 'password', 'Password must be at least 6 characters long'],
    [{ name: '' }, 'name', 'Please fill in all required fields'],
    [{ email: 'nope' }, 'email', 'Please enter a valid email address'],
  ])('renders %j as a message on %s', async (change, field, message) => {
    const response = await submit(register, '/register', { ...filled, ...change })
    expect(response.status).toBe(400)
    const { result } = await answer(response)
    expect(result.error?.[field]).toEqual([message])
    // The form comes back filled in.
    expect(result.initialValue).toMatchObject({ email: change.email ?? filled.email })
  })

  test('Send Code (intent=send-code) validates only the email and keeps what was typed', async () => {
    const invalid = await submit(register, '/register', { ...filled, intent: 'send-code', email: 'no-at' })
    expect((await answer(invalid)).result.error).toEqual({ email: ['Please enter a valid email address'] })

    const sent = await submit(register, '/register', { ...filled, intent: 'send-code', password: '' })
    expect(sent.status).toBe(200)
    const data = await answer(sent)
    expect(data.message).toBe('Verification code sent, please check your email')
    expect(data.codeSentAt).toBeGreaterThan(Date.now() - 60_000)
    expect(data.result.initialValue).toMatchObject({ name: 'Page Person' })

    const tooSoon = await submit(register, '/register', { ...filled, intent: 'send-code' })
    expect(tooSoon.status).toBe(429)
  })

  test('registers, signs in and goes home', async () => {
    const response = await submit(register, '/register', { ...filled, email: 'page-new@example.com' })
    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toBe('/')
    const token = await getSessionCookie().parse(response.headers.get('set-cookie'))
    expect(await findSessionUser(getDb(), token)).toMatchObject({ email: 'page-new@example.com', credits: 10 })
  })

  test('a taken email is shown above the form', async () => {
    await createTestUser({ email: 'page-taken@example.com' })
    const response = await submit(register, '/register', { ...filled, email: 'page-taken@example.com' })
    expect(response.status).toBe(409)
    expect((await answer(response)).result.error).toMatchObject({ '': ['This email is already registered'] })
  })
})

describe('/forgot-password', () => {
  test('step 1 sends a code and moves to step 2; step 2 resets the password and finishes', async () => {
    await createTestUser({ email: 'page-reset@example.com', password: 'old-password' })
    const missing = await answer(await submit(forgotPassword, '/forgot-password', { intent: 'send', email: '' }))
    expect(missing).toMatchObject({ step: 'email', result: { error: { email: ['Please enter your email address'] } } })

    const sent = await answer(
      await submit(forgotPassword, '/forgot-password', { intent: 'send', email: 'page-reset@example.com' }),
    )
    expect(sent).toMatchObject({ step: 'reset', message: expect.stringContaining('verification code has been sent') })

    const step2 = {
      step: 'reset',
      email: 'page-reset@example.com',
      verificationCode: '',
      password: '',
      confirmPassword: '',
    }
    const incomplete = await answer(await submit(forgotPassword, '/forgot-password', step2))
    expect(incomplete.step).toBe('reset')
    expect(incomplete.result.error).toMatchObject({
      verificationCode: ['Please enter the verification code'],
      password: ['Please enter both password fields'],
      confirmPassword: ['Please enter both password fields'],
    })

    const wrongCode = await submit(forgotPassword, '/forgot-password', {
      ...step2,
      verificationCode: '000000',
      password: 'new-password',
      confirmPassword: 'new-password',
    })
    // A wrong code is shown beside the code field (the real one is in the queued email; replace it).
    expect(wrongCode.status).toBe(400)
    expect(Object.keys((await answer(wrongCode)).result.error ?? {})).toEqual(['verificationCode'])

    const code = await issueVerificationCode(getDb(), 'page-reset@example.com', 'reset')
    const done = await answer(
      await submit(forgotPassword, '/forgot-password', {
        ...step2,
        intent: 'reset',
        verificationCode: code,
        password: 'new-password',
        confirmPassword: 'new-password',
      }),
    )
    expect(done).toMatchObject({
      done: true,
      message: 'Your password has been reset, please log in with the new password',
    })
  })
})

describe('/profile', () => {
  test('sends visitors to the login page', async () => {
    const response = await callRoute(profilePage, makeRequest('/profile'))
    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toBe('/login?redirectTo=%2Fprofile')
  })

  test('renames the user and refuses an empty username or a changed email', async () => {
    const { user, token } = await createTestUser()
    const saved = await answer(
      await submit(profile, '/profile', { name: 'Renamed', email: user.email, password: '' }, token),
    )
    expect(saved.message).toBe('Profile updated successfully')
    expect((await findUserByEmail(getDb(), user.email))?.name).toBe('Renamed')

    const empty = await submit(profile, '/profile', { name: ' ', email: user.email }, token)
    expect((await answer(empty)).result.error).toMatchObject({ name: ['Please enter a username'] })
    const otherEmail = await submit(profile, '/profile', { name: 'X', email: 'other@example.com' }, token)
    expect((await answer(otherEmail)).result.error).toMatchObject({ '': ['Email cannot be changed'] })
  })

  test('a new password needs the current one, and a NUL byte in a field is a 400 naming it', async () => {
    const { user, token } = await createTestUser({ password: 'old-password' })
    const page = await (await callRoute(profilePage, makeRequest('/profile', { token }))).json()
    expect(page.hasPassword).toBe(true)
    const fields = { name: user.name, email: user.email, password: 'new-password' }
    const missing = await submit(profile, '/profile', fields, token)
    expect(missing.status).toBe(400)
    expect((await answer(missing)).result.error).toMatchObject({
      '': ['Please enter your current password to set a new one'],
    })
    const changed = await submit(profile, '/profile', { ...fields, currentPassword: 'old-password' }, token)
    expect((await answer(changed)).message).toBe('Profile updated successfully')

    const nul = await submit(profile, '/profile', { ...fields, name: 'Rex\u0000' }, token)
    expect(nul.status).toBe(400)
    expect(await nul.json()).toEqual({
      message: 'The field "name" contains a control character, which is not allowed',
    })
  })

  test('uploads an avatar from a multipart form, and explains a missing or unreadable file', async () => {
    const { user, token } = await createTestUser()
    const upload = (file: File | null) => {
      const form = new FormData()
      form.set('avatar', file ?? new File([], ''))
      return callRoute(profile, makeRequest('/profile', { method: 'POST', body: form, token }))
    }
    const photo = await sharp({ create: { width: 80, height: 120, channels: 3, background: '#335577' } })
      .jpeg()
      .toBuffer()
    const ok = await answer(await upload(new File([new Uint8Array(photo)], 'me.jpg', { type: 'image/jpeg' })))
    expect(ok).toMatchObject({ message: 'Avatar updated successfully', form: 'avatar' })
    expect((await findUserByEmail(getDb(), user.email))?.profile_picture).toMatch(/^avatars\/.+\.webp$/)

    const none = await upload(null)
    expect(none.status).toBe(400)
    expect((await answer(none)).result.error).toEqual({ '': ['Please choose a picture to upload'] })
    const text = await upload(new File(['just text'], 'note.png', { type: 'image/png' }))
    expect(text.status).toBe(400)
  })
})

test('/auth/callback confirms the session its cookie holds and never signs in from the address alone', async () => {
  const { user, token } = await createTestUser()
  const cookie = (await getSessionCookie().serialize(token)).split(';')[0]
  const url = `/auth/callback?token=${encodeURIComponent(token)}`
  const ok = await callRoute(authCallback, makeRequest(url, { headers: { cookie } }))
  expect(await ok.json()).toEqual({ authenticated: true })
  expect(ok.headers.get('referrer-policy')).toBe('no-referrer')
  expect(await findSessionUser(getDb(), token)).toMatchObject({ id: user.id })

  // A valid token in a link, without the matching cookie, is a login-CSRF attempt: refused.
  const other = await createTestUser()
  const otherCookie = (await getSessionCookie().serialize(other.token)).split(';')[0]
  for (const request of [
    makeRequest(url),
    makeRequest(url, { headers: { cookie: otherCookie } }),
    makeRequest('/auth/callback', { headers: { cookie } }),
    makeRequest('/auth/callback?token=forged', { headers: { cookie } }),
  ]) {
    const refused = await callRoute(authCallback, request)
    expect(await refused.json()).toEqual({ authenticated: false })
    expect(refused.headers.get('set-cookie')).toBeNull()
  }
})

test('POST /logout revokes the session and clears the cookie', async () => {
  const { token } = await createTestUser()
  const cookie = (await getSessionCookie().serialize(token)).split(';')[0]
  const response = await callRoute(logout, makeRequest('/logout', { method: 'POST', headers: { cookie } }))
  expect(response.status).toBe(302)
  expect(response.headers.get('location')).toBe('/')
  expect(response.headers.get('set-cookie')).toMatch(/pawtrait_session=;.*(Max-Age=0|Expires=Thu, 01 Jan 1970)/)
  expect(await findSessionUser(getDb(), token)).toBeUndefined()
})
