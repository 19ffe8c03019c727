import { makeEachVersion } from '#worker/providers/image/versions.ts'
import { ProviderError, type GeneratedMedia } from '#worker/providers/types.ts'

const unavailable = () =>
  new ProviderError('Gemini is temporarily unavailable (HTTP 503).', { retryable: true, status: 503 })
const declined = () => new ProviderError('Gemini declined to create this image.', { retryable: false, refused: true })
const picture: GeneratedMedia = { bytes: Buffer.from('png'), mimeType: 'image/png' }

describe('several versions made by several calls', () => {
  test('a refusal among the failures explains them, so the version is never failed over around it', async () => {
    const failures = [unavailable(), declined()]
    const made = makeEachVersion({ versions: [0, 1] }, (version) => Promise.reject(failures[version]))
    await expect(made).rejects.toMatchObject({ reason: 'refused' })
  })

  test('versions that came are kept; a refusal among the others is the shortfall', async () => {
    const outcomes = [
      () => Promise.resolve(picture),
      () => Promise.reject(unavailable()),
      () => Promise.reject(declined()),
    ]
    const made = await makeEachVersion({ versions: [0, 1, 2] }, (version) => outcomes[version]())
    expect(made.images).toEqual([picture])
    expect(made.shortfall).toMatchObject({ reason: 'refused' })
  })
})
