import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import type { Pet } from '#platform/db-schema.ts'
import type { DB, Tx } from '#platform/db.server.ts'
import { contentTypeForKey, getMediaBytes, getStorage } from '#platform/storage.server.ts'
import { badRequest, HttpError, notFound } from '#domain/http-error.server.ts'
import type { EncodedImage } from '#domain/media/images.server.ts'
import { mediaUrl } from '#domain/media/media-url.ts'
import { withStagedImages, type StagedImage } from '#domain/media/staged-uploads.server.ts'
import { requireModeratedInputs, traitFields } from '#domain/moderation/moderate-inputs.server.ts'
import type { PetTraits } from '#domain/pets/pet-traits.ts'
import { acceptPetPhoto } from './pet-photos.server.ts'
import { MAX_PET_PHOTOS, type PetFields } from './pet-form.ts'

/**
 * A user's saved pets (issue 31, item 6): created, changed and deleted by their owner only (anyone
 * else's pet is as unknown as a missing one: 404), each with 1 to MAX_PET_PHOTOS reference photos
 * stored under the pet's own prefix (`pets/<id>/`), so deleting a pet can never touch other files.
 */

export interface PetPhotoView {
  id: string
  url: string
  width: number
  height: number
}

/** A pet as GET /api/pets and the pages see it. */
export interface PetView extends PetFields {
  id: string
  photos: PetPhotoView[]
  createdAt: string
  updatedAt: string
}

const isUuid = (value: string) => z.string().uuid().safeParse(value).success
const petNotFound = () => notFound('Pet not found')
const tooFewPhotos = () => badRequest('Please add at least one photo of your pet')
const tooManyPhotos = () => badRequest(`A pet has at most ${MAX_PET_PHOTOS} photos: remove one first`)

function photosOf(db: DB | Tx, petIds: string[]) {
  if (petIds.length === 0) return Promise.resolve([])
  return db
    .selectFrom('pet_photos')
    .selectAll()
    .where('pet_id', 'in', petIds)
    .orderBy('position')
    .orderBy('created_at')
    .execute()
}

async function toViews(db: DB, pets: Pet[]): Promise<PetView[]> {
  const photos = await photosOf(
    db,
    pets.map((pet) => pet.id),
  )
  return pets.map((pet) => ({
    id: pet.id,
    name: pet.name,
    species: pet.species,
    breed: pet.breed,
    colours: pet.colours,
    markings: pet.markings,
    photos: photos
      .filter((photo) => photo.pet_id === pet.id)
      .map((photo) => ({ id: photo.id, url: mediaUrl(photo.key), width: photo.width, height: photo.height })),
    createdAt: pet.created_at.toISOString(),
    updatedAt: pet.updated_at.toISOString(),
  }))
}

/** The user's pets, oldest first (the order they were added in). */
export async function listPets(db: DB, userId: string): Promise<PetView[]> {
  const pets = await db
    .selectFrom('pets')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  return toViews(db, pets)
}

/** The user's own pet (locked for a change when asked), or 404. */
async function findOwnPet(db: DB | Tx, userId: string, petId: string, { lock = false } = {}) {
  if (!isUuid(petId)) throw petNotFound()
  const query = db.selectFrom('pets').selectAll().where('id', '=', petId).where('user_id', '=', userId)
  const pet = await (lock ? query.forUpdate() : query).executeTakeFirst()
  if (!pet) throw petNotFound()
  return pet
}

type StoredPhoto = { key: string; width: number; height: number }

/**
 * Checks the uploads (acceptPetPhoto) one after the other and stores them under the pet's prefix
 * (withStagedImages: deleted again should anything fail), then runs `save`. `existingKeys` (the
 * pet's files) are never written or deleted here: an upload of the same photo is that file.
 */
async function withStoredPhotos<T>(
  db: DB,
  petId: string,
  files: File[],
  existingKeys: string[],
  save: (photos: StoredPhoto[]) => Promise<T>,
) {
  const accepted: EncodedImage[] = []
  for (const file of files) accepted.push(await acceptPetPhoto(db, file))
  return withStagedImages(
    `pets/${petId}`,
    accepted,
    (keys) => {
      const photos: StoredPhoto[] = []
      keys.forEach((key, index) => {
        // The same photo twice is one photo.
        if (photos.some((photo) => photo.key === key)) return
        photos.push({ key, width: accepted[index].width, height: accepted[index].height })
      })
      return save(photos)
    },
    existingKeys,
  )
}

/**
 * The pet's text that reaches every prompt with it (species, breed, colours, markings) is moderated
 * when it is saved or changed: a flagged field is refused with 422 naming it, before any photo is
 * checked or stored. The name never reaches a prompt.
 */
function requireModeratedPetText(fields: PetFields) {
  const traits = {
    species: fields.species,
    breed: fields.breed,
    colours: [fields.colours],
    markings: [fields.markings],
  }
  return requireModeratedInputs({
    fields: traitFields(
      traits,
      (name) => name,
      (subject, categories) => `The ${subject} flagged for ${categories}; please change it`,
    ),
  })
}

async function insertPhotos(tx: Tx, petId: string, photos: StoredPhoto[], firstPosition: number) {
  if (photos.length === 0) return
  await tx
    .insertInto('pet_photos')
    .values(photos.map((photo, index) => ({ pet_id: petId, ...photo, position: firstPosition + index })))
    .execute()
}

/** Saves a new pet with its photos (at least one; petPhotosToSave in domain/generation/ finds a task's). */
export async function createPet(db: DB, userId: string, fields: PetFields, files: File[]): Promise<PetView> {
  if (files.length === 0) throw tooFewPhotos()
  if (files.length > MAX_PET_PHOTOS) throw tooManyPhotos()
  await requireModeratedPetText(fields)
  const id = randomUUID()
  const pet = await withStoredPhotos(db, id, files, [], (photos) =>
    db.transaction().execute(async (tx) => {
      const pet = await tx
        .insertInto('pets')
        .values({ id, user_id: userId, ...fields })
        .returningAll()
        .executeTakeFirstOrThrow()
      await insertPhotos(tx, id, photos, 0)
      return pet
    }),
  )
  const [view] = await toViews(db, [pet])
  return view
}

export interface PetChange {
  fields: PetFields
  /** New photos, added after the kept ones. */
  add: File[]
  /** Ids of the pet's photos to remove. */
  remove: string[]
}

/**
 * Replaces the pet's fields, removes the listed photos and adds the new ones; the pet must keep 1
 * to MAX_PET_PHOTOS photos. The removed photos' files are deleted once the change is committed.
 */
export async function updatePet(db: DB, userId: string, petId: string, change: PetChange): Promise<PetView> {
  // Another user's pet is refused before any upload is decoded or stored.
  await findOwnPet(db, userId, petId)
  await requireModeratedPetText(change.fields)
  const existingKeys = (await photosOf(db, [petId])).map((photo) => photo.key)
  const { pet, removedKeys } = await withStoredPhotos(db, petId, change.add, existingKeys, (added) =>
    db.transaction().execute(async (tx) => {
      await findOwnPet(tx, userId, petId, { lock: true })
      const current = await photosOf(tx, [petId])
      const unknown = change.remove.filter((id) => !current.some((photo) => photo.id === id))
      if (unknown.length > 0) throw badRequest('That photo is not one of this pet’s photos')
      const kept = current.filter((photo) => !change.remove.includes(photo.id))
      // A photo the pet already has is not added twice (its file is the same object).
      const fresh = added.filter((photo) => !kept.some((keptPhoto) => keptPhoto.key === photo.key))
      const count = kept.length + fresh.length
      if (count === 0) throw tooFewPhotos()
      if (count > MAX_PET_PHOTOS) throw tooManyPhotos()
      const removed = current.filter((photo) => change.remove.includes(photo.id))
      if (removed.length > 0) {
        await tx
          .deleteFrom('pet_photos')
          .where(
            'id',
            'in',
            removed.map((photo) => photo.id),
          )
          .execute()
      }
      await insertPhotos(tx, petId, fresh, Math.max(-1, ...kept.map((photo) => photo.position)) + 1)
      const pet = await tx
        .updateTable('pets')
        .set({ ...change.fields, updated_at: new Date() })
        .where('id', '=', petId)
        .returningAll()
        .executeTakeFirstOrThrow()
      // A removed photo re-added in the same change keeps its file.
      const removedKeys = removed.map((photo) => photo.key).filter((key) => !fresh.some((photo) => photo.key === key))
      return { pet, removedKeys }
    }),
  )
  await getStorage().deleteMany(removedKeys)
  const [view] = await toViews(db, [pet])
  return view
}

/**
 * Deletes the user's pet and its photos. Files go first, so a storage failure leaves the pet (and
 * a retry finds them) rather than files nobody can reach.
 */
export async function deletePet(db: DB, userId: string, petId: string) {
  const pet = await findOwnPet(db, userId, petId)
  const photos = await photosOf(db, [pet.id])
  await getStorage().deleteMany(photos.map((photo) => photo.key))
  await db.deleteFrom('pets').where('id', '=', pet.id).execute()
}

/** Every stored photo of the user's pets, for deleting the user. */
export async function userPetPhotoKeys(db: DB | Tx, userId: string) {
  const rows = await db
    .selectFrom('pet_photos')
    .innerJoin('pets', 'pets.id', 'pet_photos.pet_id')
    .select('pet_photos.key')
    .where('pets.user_id', '=', userId)
    .execute()
  return rows.map((row) => row.key)
}

/** "tan, white" → ["tan", "white"]: the traits' lists, from the text the owner typed. */
const listed = (text: string) =>
  text
    .split(/[,;\n]/)
    .map((item) => item.trim())
    .filter(Boolean)

export interface PetInputs {
  name: string
  traits: PetTraits
  /** The photos' bytes, in order, ready to be stored again under a task. */
  images: StagedImage[]
}

/** The user's pet's traits and photos, for a generation with it; anyone else's pet is a 404. */
export async function petGenerationInputs(db: DB, userId: string, petId: string): Promise<PetInputs> {
  const pet = await findOwnPet(db, userId, petId)
  const photos = await photosOf(db, [pet.id])
  const storage = getStorage()
  const images = []
  for (const photo of photos) {
    const bytes = await getMediaBytes(storage, photo.key)
    if (!bytes) throw new HttpError(409, `A photo of ${pet.name} is no longer stored: add it to the pet again`)
    images.push({ bytes, mimeType: contentTypeForKey(photo.key), ext: photo.key.slice(photo.key.lastIndexOf('.') + 1) })
  }
  if (images.length === 0) throw tooFewPhotos()
  return {
    name: pet.name,
    traits: { species: pet.species, breed: pet.breed, colours: listed(pet.colours), markings: listed(pet.markings) },
    images,
  }
}
