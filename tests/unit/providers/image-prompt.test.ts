import { buildImagePrompt, guidedItems, guidedOptionsSchema, imagePromptSchema } from '#domain/generation/prompt.ts'
import { guided } from './image-fixtures.ts'

describe('buildImagePrompt in Guide mode', () => {
  const outfit = {
    clothingTop: 'red hoodie',
    clothingPants: 'blue jeans',
    clothingShoes: 'white sneakers',
    accessories: 'gold crown',
    action: 'waving hello',
    background: 'a sunny beach',
  }

  it('uses every field, pants and shoes included, for a personified pet', () => {
    const prompt = buildImagePrompt({
      mode: 'guide',
      style: 'general',
      guided: guided({ personification: 'yes', ...outfit }),
    })

    expect(prompt).toContain('personified, human-like character')
    expect(prompt).toContain('Wearing red hoodie on top, blue jeans as trousers, white sneakers on its feet.')
    expect(prompt).toContain('Accessories: gold crown.')
    expect(prompt).toContain('Action: waving hello.')
    expect(prompt).toContain('Background: a sunny beach.')
  })

  it('drops pants and shoes when the pet is not personified', () => {
    const prompt = buildImagePrompt({
      mode: 'guide',
      style: 'general',
      guided: guided({ personification: 'no', ...outfit }),
    })

    expect(prompt).toContain('natural animal (not human-like)')
    expect(prompt).toContain('Wearing red hoodie on top.')
    expect(prompt).not.toContain('jeans')
    expect(prompt).not.toContain('sneakers')
  })

  it('leaves empty fields out instead of writing empty sentences', () => {
    const prompt = buildImagePrompt({ mode: 'guide', style: 'general', guided: guided({ action: 'sleeping' }) })

    expect(prompt).toContain('Action: sleeping.')
    expect(prompt).not.toMatch(/Wearing|Accessories|Background/)
    expect(prompt).not.toMatch(/:\s*\./)
  })

  it('tidies whitespace and trailing punctuation typed by the user', () => {
    const prompt = buildImagePrompt({
      mode: 'guide',
      style: 'general',
      guided: guided({ accessories: '  a red\n scarf.. ', background: 'snowy   hills;' }),
    })

    expect(prompt).toContain('Accessories: a red scarf. Background: snowy hills.')
  })

  it('is deterministic', () => {
    const input = {
      mode: 'guide',
      style: 'fashion_male',
      guided: guided({ personification: 'yes', ...outfit }),
    } as const
    expect(buildImagePrompt(input)).toBe(buildImagePrompt(structuredClone(input)))
  })
})

describe('buildImagePrompt styles', () => {
  const styled = (style: string) => buildImagePrompt({ mode: 'guide', style, guided: guided() })

  it('adds a different phrase for each generator style', () => {
    expect(styled('general')).toMatch(/^A warm, painterly pet portrait/)
    expect(styled('fashion_female')).toContain('rose and gold')
    expect(styled('fashion_male')).toContain('navy and charcoal')
    expect(styled('template')).toContain('follows the template')
    expect(new Set(['general', 'fashion_female', 'fashion_male', 'template'].map(styled)).size).toBe(4)
  })

  it('names an admin-made style in words', () => {
    expect(styled('oil_painting')).toMatch(/^A pet portrait in the style of oil painting\./)
  })
})

describe('buildImagePrompt in Customize and template modes', () => {
  it('passes the free prompt through and mentions the reference images', () => {
    const prompt = buildImagePrompt({
      mode: 'customize',
      style: 'fashion_female',
      prompt: 'My cat as a\nqueen on a throne!',
      referenceImageCount: 2,
    })

    expect(prompt).toContain('Use the 2 other images as visual references.')
    expect(prompt).toContain('Instructions: My cat as a queen on a throne!')
    expect(prompt).not.toContain('throne!.')
  })

  it('mentions a single reference image in the singular, and none when there are none', () => {
    const customize = (referenceImageCount: number) =>
      buildImagePrompt({ mode: 'customize', style: 'general', prompt: 'A dog', referenceImageCount })
    expect(customize(1)).toContain('Use the other image as a visual reference.')
    expect(customize(0)).not.toContain('reference')
  })

  it('prefers the template prompt and falls back to the plain prompt', () => {
    const fromTemplate = buildImagePrompt({
      mode: 'template',
      style: 'template',
      templatePrompt: 'Astronaut on the moon',
      prompt: 'ignored',
    })
    const fromPrompt = buildImagePrompt({
      mode: 'template',
      style: 'template',
      templatePrompt: ' ',
      prompt: 'Pirate ship',
    })

    expect(fromTemplate).toContain('Scene: Astronaut on the moon.')
    expect(fromTemplate).not.toContain('ignored')
    expect(fromPrompt).toContain('Scene: Pirate ship.')
  })
})

describe('guided schemas', () => {
  it('fills missing fields with defaults and trims values', () => {
    expect(guidedOptionsSchema.parse({ clothingTop: '  hoodie ' })).toEqual(
      guided({ personification: 'no', clothingTop: 'hoodie' }),
    )
  })

  it('rejects over-long fields, unknown personification values and over-long prompts', () => {
    expect(guidedOptionsSchema.safeParse({ action: 'x'.repeat(201) }).success).toBe(false)
    expect(guidedOptionsSchema.safeParse({ personification: 'maybe' }).success).toBe(false)
    expect(imagePromptSchema.safeParse('x'.repeat(4001)).success).toBe(false)
    expect(imagePromptSchema.safeParse('   ').success).toBe(false)
  })

  it('lists the applying guided items in order for renderers', () => {
    const items = guidedItems(guided({ clothingPants: 'jeans', accessories: 'bow tie', clothingTop: 'vest' }))
    expect(items.map((item) => item.key)).toEqual(['clothingTop', 'accessories'])
  })
})
