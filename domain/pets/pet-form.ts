/**
 * The fields of a saved pet, shared by POST/PUT /api/pets, the /pets page's action and its
 * in-browser validation. Species is free text (with suggestions on the page): owners keep
 * ferrets and tortoises too, and the photo check names species in its own words.
 */
import { z } from 'zod'

export const MAX_PET_PHOTOS = 3
export const PET_NAME_MAX = 50
export const SPECIES_MAX = 40
export const BREED_MAX = 80
export const COLOURS_MAX = 120
export const MARKINGS_MAX = 200
export const SPECIES_SUGGESTIONS = ['dog', 'cat', 'rabbit', 'guinea pig', 'hamster', 'bird', 'horse', 'ferret']

const text = (label: string, max: number) =>
  z.string().trim().max(max, `${label} must be at most ${max} characters`).default('')

const required = (label: string, max: number, missing: string) =>
  z
    .string({ required_error: missing, invalid_type_error: missing })
    .trim()
    .min(1, missing)
    .max(max, `${label} must be at most ${max} characters`)

const photo = z.instanceof(File)

export const petFormSchema = z.object({
  name: required('The name', PET_NAME_MAX, 'Please give your pet a name'),
  species: required('The species', SPECIES_MAX, 'Please say what kind of animal your pet is (dog, cat …)'),
  breed: text('The breed', BREED_MAX),
  colours: text('The colours', COLOURS_MAX),
  markings: text('The markings', MARKINGS_MAX),
  // An empty file input still sends an empty part, which conform reads as undefined.
  photos: z
    .array(photo.optional())
    .default([])
    .transform((files) => files.filter((file) => file !== undefined))
    .pipe(z.array(photo).max(MAX_PET_PHOTOS, `A pet has at most ${MAX_PET_PHOTOS} photos`)),
  /** POST only, instead of `photos`: a task of the user's whose pet photo(s) the pet keeps ("Save this pet"). */
  fromTask: z.string().trim().uuid('Unknown task').optional(),
  /** PUT only: ids of the pet's photos to remove. */
  removePhotos: z.array(z.string().uuid('Unknown photo to remove')).default([]),
})

export type PetForm = z.output<typeof petFormSchema>
export type PetFields = Pick<PetForm, 'name' | 'species' | 'breed' | 'colours' | 'markings'>

export const petFieldsOf = ({ name, species, breed, colours, markings }: PetForm): PetFields => ({
  name,
  species,
  breed,
  colours,
  markings,
})
