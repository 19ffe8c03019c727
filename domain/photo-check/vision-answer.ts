/**
 * The structured answer asked of a vision model about a pet photo: its JSON Schema (sent as OpenAI's
 * `json_schema` response format and Gemini's `responseJsonSchema`; strict mode wants every property
 * required and no others), the parser of what comes back, and what the answer means for the upload.
 */
import { z } from 'zod'
import type { Verdict } from './local-verdict.ts'

export const VISION_PROMPT = [
  'You check photos that people upload to have a portrait of their pet painted.',
  'Look at the photo and answer in the JSON schema given.',
  'pet_found: whether a real pet animal (dog, cat, rabbit, bird, horse, reptile...) is clearly visible.',
  'pet_count: how many animals are visible.',
  'species, breed_guess: of the main animal, in plain lower-case words ("" when no pet, or the breed is unclear).',
  'main_colours: up to 4 main fur/feather/skin colours; markings: up to 4 distinctive markings (e.g. "white blaze on the chest").',
  'problems: face_hidden (the face is turned away or covered), cropped (much of the pet is cut off), several_pets.',
].join('\n')

const PROBLEMS = ['face_hidden', 'cropped', 'several_pets'] as const

export const visionAnswerJsonSchema = {
  type: 'object',
  properties: {
    pet_found: { type: 'boolean' },
    pet_count: { type: 'integer' },
    species: { type: 'string' },
    breed_guess: { type: 'string' },
    main_colours: { type: 'array', items: { type: 'string' } },
    markings: { type: 'array', items: { type: 'string' } },
    problems: { type: 'array', items: { type: 'string', enum: [...PROBLEMS] } },
  },
  required: ['pet_found', 'pet_count', 'species', 'breed_guess', 'main_colours', 'markings', 'problems'],
  additionalProperties: false,
}

export const visionAnswerSchema = z.object({
  pet_found: z.boolean(),
  pet_count: z.number().int().min(0),
  species: z.string(),
  breed_guess: z.string(),
  main_colours: z.array(z.string()),
  markings: z.array(z.string()),
  problems: z.array(z.enum(PROBLEMS)),
})

export type VisionAnswer = z.infer<typeof visionAnswerSchema>

const NO_PET_MESSAGE = "We couldn't find a pet in this photo: try one where your pet's face is visible"

const problemWarnings: Record<(typeof PROBLEMS)[number], string> = {
  face_hidden: 'Your pet’s face is hard to see: a photo of its face gives a closer likeness',
  cropped: 'Part of your pet is cut off: a photo of the whole head gives a closer likeness',
  several_pets: 'There is more than one animal: the portrait follows the most prominent one',
}

/** What the vision model saw of the pet, in the shape of a saved pet's traits (domain/pets/pet-traits.ts). */
const seenTraits = (answer: VisionAnswer) => ({
  species: answer.species,
  breed: answer.breed_guess,
  colours: answer.main_colours.slice(0, 4),
  markings: answer.markings.slice(0, 4),
})

export type SeenTraits = ReturnType<typeof seenTraits>

export function judgeAnswer(answer: VisionAnswer): Verdict & { traits?: SeenTraits } {
  if (!answer.pet_found || answer.pet_count === 0) return { refusal: NO_PET_MESSAGE, warnings: [] }
  const problems = new Set(answer.problems)
  if (answer.pet_count > 1) problems.add('several_pets')
  return {
    warnings: [...problems].map((problem) => problemWarnings[problem]),
    traits: seenTraits(answer),
  }
}
