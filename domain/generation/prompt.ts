/**
 * Turns what the user chose on /generate into the one prompt an image model receives, and holds the
 * zod schemas of those inputs so the web (via `#domain/generation/prompt.ts`) validates exactly
 * what the worker understands. Pure and free of Node-only APIs.
 */
import { z } from 'zod'
import { petPhotosSentence, traitsSentence, type PetTraits } from '#domain/pets/pet-traits.ts'
import { GUIDED_FIELD_MAX_LENGTH, guidedRecord } from './guided-fields.ts'
import { petsSentence, type PortraitPet } from './portrait-pets.ts'

export const PROMPT_MAX_LENGTH = 4000

/** The generator's built-in styles; 'template' is used when a gallery template is applied. */
export const GENERATOR_STYLES = ['general', 'fashion_female', 'fashion_male', 'template'] as const
export type GeneratorStyle = (typeof GENERATOR_STYLES)[number]

// `.default('')` because conform turns an empty form field into undefined.
const guidedText = z.string().trim().max(GUIDED_FIELD_MAX_LENGTH).default('')

/** The structured options of the generator's Guide mode, one for each of GUIDED_FIELDS. */
export const guidedOptionsSchema = z.object({
  ...guidedRecord(() => guidedText),
  personification: z.enum(['yes', 'no']).default('no'),
})

export type GuidedOptions = z.output<typeof guidedOptionsSchema>

export const imagePromptSchema = z.string().trim().min(1).max(PROMPT_MAX_LENGTH)

export type ImagePromptInput = (
  | { mode: 'guide'; style: string; guided: GuidedOptions }
  /** referenceImageCount: how many extra reference images follow the pet photo(s). */
  | { mode: 'customize'; style: string; prompt: string; referenceImageCount: number }
  /** Templates carry their own templatePrompt; the plain prompt is the fallback. */
  | { mode: 'template'; style: string; templatePrompt: string; prompt: string }
) & {
  /** What the photo check saw of the pet, to hold the likeness. */
  traits?: PetTraits
  /** How many of the images are photos of the pet (a saved pet's photos), 1 when absent. */
  petPhotoCount?: number
  /** A portrait of several pets: each in order, its photos leading the images in that order (issue 41). */
  pets?: PortraitPet[]
}

export interface GuidedItem {
  key: keyof GuidedOptions
  label: string
  value: string
}

/**
 * The guided choices that apply, in a fixed order, empty ones left out. Pants and shoes only apply
 * to a personified pet (spec: /generate). Shared by the prompt and the offline renderer's badges.
 */
export function guidedItems(guided: GuidedOptions): GuidedItem[] {
  const personified = guided.personification === 'yes'
  const items: GuidedItem[] = [
    { key: 'clothingTop', label: 'Top', value: guided.clothingTop },
    { key: 'clothingPants', label: 'Pants', value: personified ? guided.clothingPants : '' },
    { key: 'clothingShoes', label: 'Shoes', value: personified ? guided.clothingShoes : '' },
    { key: 'accessories', label: 'Accessories', value: guided.accessories },
    { key: 'action', label: 'Action', value: guided.action },
  ]
  return items.map((item) => ({ ...item, value: tidy(item.value) })).filter((item) => item.value !== '')
}

export function buildImagePrompt(input: ImagePromptInput): string {
  const several = input.pets && input.pets.length > 1 ? input.pets : null
  const sentences = [
    stylePhrase(input.style),
    several ? petsSentence(several) : petPhotosSentence(input.petPhotoCount ?? 1),
  ]
  switch (input.mode) {
    case 'guide':
      sentences.push(...guidedSentences(input.guided, several !== null))
      break
    case 'customize':
      sentences.push(
        several
          ? "Portray every one of the pets together, keeping each one's face, fur colours and markings recognisable."
          : 'Portray the pet from the first image, keeping its face, fur colours and markings recognisable.',
        referenceSentence(input.referenceImageCount),
        labelled('Instructions', input.prompt),
      )
      break
    case 'template':
      sentences.push(
        several
          ? 'Recreate the described scene with all of the pets together, keeping each of them recognisable.'
          : 'Recreate the described scene with the pet from the first image, keeping it recognisable.',
        labelled('Scene', input.templatePrompt.trim() ? input.templatePrompt : input.prompt),
      )
      break
  }
  if (input.traits && !several) sentences.push(traitsSentence(input.traits))
  sentences.push(
    several
      ? `All ${several.length} pets together as the subjects, none left out, high detail, no text, no watermark.`
      : 'One pet as the clear subject, high detail, no text, no watermark.',
  )
  return sentences
    .filter((sentence) => sentence !== '')
    .map(endSentence)
    .join(' ')
}

const STYLE_PHRASES: Record<GeneratorStyle, string> = {
  general: 'A warm, painterly pet portrait with soft natural light and rich brushwork',
  fashion_female:
    'A high-fashion editorial pet portrait with elegant feminine styling, soft rose and gold tones and glossy studio light',
  fashion_male:
    'A high-fashion editorial pet portrait with sharp masculine tailoring, cool navy and charcoal tones and crisp studio light',
  template: 'A polished pet portrait that follows the template closely',
}

function stylePhrase(style: string): string {
  if (isGeneratorStyle(style)) return STYLE_PHRASES[style]
  // Styles created by admins are free-form keys such as oil_painting.
  const name = tidy(style.replace(/[_-]+/g, ' '))
  return name ? `A pet portrait in the style of ${name}` : STYLE_PHRASES.general
}

export function isGeneratorStyle(style: string): style is GeneratorStyle {
  return (GENERATOR_STYLES as readonly string[]).includes(style)
}

function guidedSentences(guided: GuidedOptions, several: boolean): string[] {
  const chosen = new Map(guidedItems(guided).map((item) => [item.key, item.value]))
  const top = chosen.get('clothingTop')
  const pants = chosen.get('clothingPants')
  const shoes = chosen.get('clothingShoes')
  const outfit = [top && `${top} on top`, pants && `${pants} as trousers`, shoes && `${shoes} on its feet`].filter(
    (part) => part !== undefined,
  )
  const accessories = chosen.get('accessories')
  const action = chosen.get('action')
  const background = tidy(guided.background)
  const nature =
    guided.personification === 'yes'
      ? several
        ? "Turn each of the pets into a personified, human-like character standing upright, keeping each one's face, fur colours and markings recognisable"
        : 'Turn the pet from the first image into a personified, human-like character standing upright, keeping its face, fur colours and markings recognisable'
      : several
        ? 'Keep every pet a natural animal (not human-like), each with its own face, fur colours and markings recognisable'
        : 'Keep the pet from the first image a natural animal (not human-like), with its face, fur colours and markings recognisable'
  return [
    nature,
    outfit.length > 0 ? `Wearing ${outfit.join(', ')}` : '',
    accessories ? `Accessories: ${accessories}` : '',
    action ? `Action: ${action}` : '',
    background ? `Background: ${background}` : '',
  ]
}

/** One line, single spaces, without the trailing punctuation we add ourselves. */
function tidy(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\s.,;:]+$/, '')
}

/** A free-text prompt on one line, keeping the user's own final punctuation; '' when blank. */
function labelled(label: string, text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim()
  return oneLine ? `${label}: ${oneLine}` : ''
}

function endSentence(sentence: string): string {
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`
}

function referenceSentence(count: number): string {
  if (count === 0) return ''
  return count === 1
    ? 'Use the other image as a visual reference.'
    : `Use the ${count} other images as visual references.`
}
