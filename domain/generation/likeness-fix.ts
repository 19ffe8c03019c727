import { z } from 'zod'
import type { PetTraits } from '#domain/pets/pet-traits.ts'

/**
 * "Doesn't look like my pet?": what the user can say is off, the form's schema (the API's JSON and
 * the page's plain form alike), and the corrections the fix adds to the prompt, built from the
 * reasons, the note and the pet's traits when the photo check or a saved pet supplied them. Pure:
 * the web validates with it, the worker builds the prompt with it.
 */

export const LIKENESS_FIX_REASONS = {
  fur_colour: 'Fur colour',
  markings: 'Markings',
  ears: 'Ears',
  eyes: 'Eyes',
  nose_muzzle: 'Nose/muzzle',
  breed_body: 'Breed or body shape',
  other: 'Other',
} as const

export type LikenessFixReason = keyof typeof LIKENESS_FIX_REASONS

const reasonKeys = Object.keys(LIKENESS_FIX_REASONS) as [LikenessFixReason, ...LikenessFixReason[]]

export const FIX_NOTE_MAX_LENGTH = 200

const reasonSchema = z.string().refine((value): value is LikenessFixReason => reasonKeys.includes(value as never), {
  message: `Unknown reason: choose from ${reasonKeys.join(', ')}`,
})

export const likenessFixSchema = z.object({
  // A plain form sends one checkbox as a single value.
  reasons: z.preprocess(
    (value) => (typeof value === 'string' ? [value] : value),
    z
      .array(reasonSchema, {
        required_error: 'Say what is off: choose at least one reason',
        invalid_type_error: 'reasons must be a list of reasons',
      })
      .min(1, 'Say what is off: choose at least one reason')
      .max(reasonKeys.length)
      .transform((reasons) => [...new Set(reasons)] as LikenessFixReason[]),
  ),
  /** Of a portrait of several pets, which one is off (from 0); the pages and the API check it is one of them. */
  pet: z.preprocess(
    (value) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value === '' ? undefined : value),
    z
      .number({ invalid_type_error: 'pet must be the number of the pet that is off (0 for the first)' })
      .int('pet must be a whole number')
      .min(0, 'pet must be 0 or more')
      .optional(),
  ),
  note: z
    .string({ invalid_type_error: 'note must be text' })
    .trim()
    .max(FIX_NOTE_MAX_LENGTH, `The note can be at most ${FIX_NOTE_MAX_LENGTH} characters`)
    .default(''),
})

export type LikenessFix = z.infer<typeof likenessFixSchema>

const listed = (items: string[] | undefined) =>
  (items ?? [])
    .map((item) => item.trim())
    .filter(Boolean)
    .join(', ')

/** One correction per reason, the traits filling in what the photo alone would leave vague. */
function correctionFor(reason: LikenessFixReason, traits: PetTraits | undefined): string {
  switch (reason) {
    case 'fur_colour': {
      const colours = listed(traits?.colours)
      return colours
        ? `Match the fur colours exactly (${colours}), as in the photo`
        : 'Match the fur colours and their shades exactly as in the photo'
    }
    case 'markings': {
      const markings = listed(traits?.markings)
      return markings
        ? `Reproduce its markings exactly (${markings}), each in the same place as in the photo`
        : 'Reproduce every marking and pattern of the coat in the same place as in the photo'
    }
    case 'ears':
      return 'Match the ears to the photo: their shape, size and how they are carried (upright, folded or floppy)'
    case 'eyes':
      return 'Match the eyes to the photo: their colour, shape and spacing'
    case 'nose_muzzle':
      return "Match the nose's colour and the muzzle's length and shape to the photo"
    case 'breed_body': {
      const kind = [traits?.breed, traits?.species]
        .map((part) => part?.trim())
        .filter(Boolean)
        .join(' ')
      return kind
        ? `It is a ${kind}: keep its breed features, body shape and proportions as in the photo`
        : 'Keep the breed features, body shape and proportions of the pet in the photo'
    }
    case 'other':
      return ''
  }
}

/**
 * The sentences a likeness fix adds to the prompt; `who` names the pet that is off in a portrait of
 * several ("the second pet, Pepper"), whose photos are then the ones to follow.
 */
export function likenessCorrections(fix: LikenessFix, traits?: PetTraits, who?: string): string {
  const corrections = fix.reasons.map((reason) => correctionFor(reason, traits)).filter(Boolean)
  const note = fix.note.replace(/\s+/g, ' ').trim()
  return [
    who
      ? `Likeness correction: in an earlier portrait ${who} did not look like itself, so follow its photos closely and change only ${who}`
      : 'Likeness correction: an earlier portrait did not look like this pet, so follow the photo closely',
    ...corrections,
    note ? `The owner adds: "${note}"` : '',
  ]
    .filter(Boolean)
    .map((sentence) => `${sentence}.`)
    .join(' ')
}
