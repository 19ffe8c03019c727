import { apiErrorMessage, errorForStatus, redact, requestJson } from '#worker/providers/http.ts'
import type { ProviderError } from '#worker/providers/types.ts'
import { freePort } from '../../../scripts/embedded-postgres.ts'
import type { HttpCallOptions } from '#worker/providers/http.ts'

const options: HttpCallOptions = {
  service: 'OpenAI',
  timeoutMs: 1_000,
  signal: new AbortController().signal,
  secrets: ['my-secret-key'],
}

describe('errorForStatus', () => {
  it.each([408, 429, 500, 502, 503])('makes HTTP %i retryable', (status) => {
    expect(errorForStatus(status, 'whatever', options)).toMatchObject({ retryable: true, status })
  })

  it.each([400, 404, 413, 422])('makes HTTP %i final, with the service explanation', (status) => {
    const error = errorForStatus(status, 'Invalid size "9x9".', options)
    expect(error).toMatchObject({ retryable: false, status })
    expect(error.message).toBe(`OpenAI rejected the request (HTTP ${status}): Invalid size "9x9".`)
  })

  it('points at the configuration for refused credentials', () => {
    expect(errorForStatus(403, 'Project lacks access', options).message).toBe(
      "OpenAI refused this server's credentials (HTTP 403); an administrator must check the API key.",
    )
  })

  it('keeps secrets and key-shaped strings out of messages, and shortens long explanations', () => {
    const error = errorForStatus(400, `key my-secret-key or sk-proj-abcdef123456 is bad ${'x'.repeat(500)}`, options)
    expect(error.message).not.toContain('my-secret-key')
    expect(error.message).not.toContain('sk-proj-abcdef123456')
    expect(error.message).toContain('[redacted]')
    expect(error.message.length).toBeLessThan(400)
  })
})

describe('redact', () => {
  it('replaces every occurrence and ignores empty secrets', () => {
    expect(redact('a KEY b KEY', ['KEY', ''])).toBe('a [redacted] b [redacted]')
  })
})

describe('apiErrorMessage', () => {
  it('reads { error: { message } } and nothing else', () => {
    expect(
      apiErrorMessage({
        status: 400,
        ok: false,
        body: { error: { message: 'Bad prompt' } },
        text: '',
        headers: new Headers(),
      }),
    ).toBe('Bad prompt')
    expect(
      apiErrorMessage({
        status: 502,
        ok: false,
        body: undefined,
        text: '<html>Bad gateway</html>',
        headers: new Headers(),
      }),
    ).toBe('')
    expect(
      apiErrorMessage({ status: 400, ok: false, body: { error: 'flat string' }, text: '', headers: new Headers() }),
    ).toBe('')
  })
})

describe('a call that got no answer', () => {
  const failure = (url: string, init: RequestInit = {}) =>
    requestJson(url, init, options).then(
      () => expect.unreachable('the call should fail'),
      (error: unknown) => error as ProviderError,
    )

  it('is unreachable when the host refuses the connection: the task waits for it', async () => {
    const error = await failure(`http://127.0.0.1:${await freePort()}/v1/images`)
    expect(error).toMatchObject({ retryable: true, unreachable: true })
  })

  it('is not unreachable when the request itself is wrong: waiting would not mend it', async () => {
    const badHeader = await failure('http://127.0.0.1:9/v1/images', { headers: { Authorization: 'Bearer a\nb' } })
    expect(badHeader.unreachable).toBe(false)
    const badUrl = await failure('http://exa mple.invalid/v1/images')
    expect(badUrl.unreachable).toBe(false)
  })
})
