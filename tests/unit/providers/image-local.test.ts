import { createHash } from 'node:crypto'
import sharp from 'sharp'
import { createLocalImageProvider } from '#worker/providers/image/local.ts'
import { PHOTO } from '#worker/providers/image/local/decorations.ts'
import type { GuidedOptions, ImageMimeType, ImageRequest } from '#worker/providers/types.ts'
import { guided, imageRequest, petPhoto, providerFailure, testContext } from './image-fixtures.ts'

const provider = createLocalImageProvider()

async function render(overrides: Partial<ImageRequest> = {}): Promise<Buffer> {
  const {
    images: [result],
  } = await provider.generate(await imageRequest(overrides), testContext())
  expect(result.mimeType).toBe('image/png')
  return result.bytes
}

function renderGuided(options: Partial<GuidedOptions>, style = 'general'): Promise<Buffer> {
  return render({ style, guided: guided(options) })
}

const hash = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

/** Mean red, green and blue of a region. */
async function meanColour(png: Buffer, region: { left: number; top: number; width: number; height: number }) {
  // Two steps: stats() describes a pipeline's input, not its extracted output.
  const { channels } = await sharp(await sharp(png).extract(region).png().toBuffer()).stats()
  return { r: channels[0].mean, g: channels[1].mean, b: channels[2].mean }
}

const photoCentre = { left: PHOTO.x + 100, top: PHOTO.y + 100, width: PHOTO.size - 200, height: 300 }

describe('local image provider', () => {
  it('is named local', () => {
    expect(provider.name).toBe('local')
  })

  it.each<ImageMimeType>(['image/jpeg', 'image/png', 'image/webp'])('renders a 1024x1024 PNG from %s', async (type) => {
    const bytes = await render({ images: [await petPhoto(type)] })
    const meta = await sharp(bytes).metadata()
    expect(meta).toMatchObject({ format: 'png', width: 1024, height: 1024 })
  })

  it('accepts a portrait photo and a transparent PNG', async () => {
    const transparent = await sharp({ create: { width: 300, height: 500, channels: 4, background: '#00000000' } })
      .png()
      .toBuffer()
    const bytes = await render({ images: [{ bytes: transparent, mimeType: 'image/png' }] })
    expect((await sharp(bytes).metadata()).width).toBe(1024)
  })

  it('reports rising progress up to 100', async () => {
    const context = testContext()
    await provider.generate(await imageRequest(), context)
    expect(context.progress.at(-1)).toBe(100)
    expect(context.progress).toEqual([...context.progress].sort((a, b) => a - b))
    expect(context.progress.length).toBeGreaterThan(1)
  })

  it('gives the same picture for the same request', async () => {
    const options = { background: 'a sunny beach', accessories: 'red bow' }
    expect(hash(await renderGuided(options))).toBe(hash(await renderGuided(options)))
  })

  it("draws a re-roll's seed differently from its run, and the same seed alike", async () => {
    const [run, reroll, again] = await Promise.all([render(), render({ seed: 12345 }), render({ seed: 12345 })])
    expect(hash(reroll)).not.toBe(hash(run))
    expect(hash(again)).toBe(hash(reroll))
  })

  it('treats each style differently', async () => {
    const [general, female, male, template] = await Promise.all(
      ['general', 'fashion_female', 'fashion_male', 'template'].map((style) => render({ style })),
    )
    expect(new Set([general, female, male, template].map(hash)).size).toBe(4)

    const rose = await meanColour(female, photoCentre)
    const navy = await meanColour(male, photoCentre)
    const sepia = await meanColour(template, photoCentre)
    // Cool editorial leans blue, rose editorial leans red, sepia orders its channels red > green > blue.
    expect(navy.b - navy.r).toBeGreaterThan(rose.b - rose.r + 20)
    expect(sepia.r).toBeGreaterThan(sepia.g)
    expect(sepia.g).toBeGreaterThan(sepia.b)
  })

  it('renders unknown styles like general', async () => {
    expect(hash(await render({ style: 'oil_painting' }))).toBe(hash(await render({ style: 'general' })))
  })

  it('draws the requested background', async () => {
    const corner = { left: 0, top: 0, width: 150, height: 90 }
    const beach = await meanColour(await renderGuided({ background: 'a sunny beach' }), corner)
    const forest = await meanColour(await renderGuided({ background: 'a deep forest' }), corner)
    const library = await meanColour(await renderGuided({ background: 'a cozy library' }), corner)
    const none = await meanColour(await renderGuided({}), corner)

    expect(beach.b).toBeGreaterThan(beach.g + 20) // blue sky
    expect(forest.g).toBeGreaterThan(forest.b + 10) // green sky
    // An unknown place still changes the picture, away from the style's own backdrop.
    expect(Math.abs(library.r - none.r) + Math.abs(library.g - none.g) + Math.abs(library.b - none.b)).toBeGreaterThan(
      30,
    )
  })

  it('uses a place named in a Customize prompt', async () => {
    const corner = { left: 0, top: 0, width: 150, height: 90 }
    const night = await meanColour(await render({ prompt: 'My dog under a starry night sky' }), corner)
    expect(night.b).toBeGreaterThan(night.r + 20)
    expect(night.r + night.g + night.b).toBeLessThan(250) // dark
  })

  it('colours the outfit touch after the chosen top', async () => {
    const sash = { left: 480, top: 660, width: 64, height: 30 }
    const red = await meanColour(await renderGuided({ clothingTop: 'red hoodie' }), sash)
    const blue = await meanColour(await renderGuided({ clothingTop: 'blue hoodie' }), sash)
    expect(red.r).toBeGreaterThan(red.b + 60)
    expect(blue.b).toBeGreaterThan(blue.r + 60)
  })

  it('pins a rosette for accessories', async () => {
    const rosette = { left: PHOTO.x + PHOTO.size - 90, top: PHOTO.y - 20, width: 120, height: 120 }
    const plain = await sharp(await renderGuided({}))
      .extract(rosette)
      .raw()
      .toBuffer()
    const withCrown = await sharp(await renderGuided({ accessories: 'golden crown' }))
      .extract(rosette)
      .raw()
      .toBuffer()
    expect(hash(plain)).not.toBe(hash(withCrown))
  })

  it('ignores pants and shoes unless the pet is personified', async () => {
    const base = { clothingTop: 'vest' }
    const bare = hash(await renderGuided({ ...base, personification: 'no' }))
    const ignored = hash(
      await renderGuided({ ...base, personification: 'no', clothingPants: 'jeans', clothingShoes: 'boots' }),
    )
    const personified = hash(await renderGuided({ ...base, personification: 'yes', clothingPants: 'jeans' }))
    expect(ignored).toBe(bare)
    expect(personified).not.toBe(bare)
  })

  it('fails for good on a file that is not an image', async () => {
    const error = await providerFailure(
      provider.generate(
        await imageRequest({ images: [{ bytes: Buffer.from('not an image'), mimeType: 'image/png' }] }),
        testContext(),
      ),
    )
    expect(error.retryable).toBe(false)
    expect(error.message).toBe('The pet photo could not be read as an image.')
  })

  it('fails for good without a photo', async () => {
    const error = await providerFailure(provider.generate(await imageRequest({ images: [] }), testContext()))
    expect(error.retryable).toBe(false)
  })

  it('stops, retryably, when the job is aborted', async () => {
    const controller = new AbortController()
    controller.abort()
    const error = await providerFailure(provider.generate(await imageRequest(), testContext(controller.signal)))
    expect(error.retryable).toBe(true)
  })
})
