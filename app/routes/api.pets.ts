import { json } from '@remix-run/node'
import { readPetForm } from '#app/pets/pet-forms.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { submissionRefusal } from '#app/utils/form-errors.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { petPhotosToSave } from '#domain/generation/task-pet-photos.server.ts'
import { createPet, listPets } from '#domain/pets/pets.server.ts'
import { petFieldsOf } from '#domain/pets/pet-form.ts'
import { getDb } from '#platform/db.server.ts'

/** GET /api/pets: the signed-in user's saved pets. */
export const loader = apiHandler(async ({ request }) => {
  const user = await requireUser(request)
  return json({ pets: await listPets(getDb(), user.id) })
})

/**
 * POST /api/pets (multipart: name, species, breed, colours, markings, 1 to 3 `photos`, or instead
 * `fromTask`, the id of one of the user's image tasks whose pet photo the pet keeps): saves a pet.
 */
export const action = apiHandler(async ({ request }) => {
  const user = await requireUser(request)
  const submission = await readPetForm(request)
  if (submission.status !== 'success') throw submissionRefusal(submission.error)
  const { photos, fromTask } = submission.value
  const files = await petPhotosToSave(getDb(), user.id, photos, fromTask)
  const pet = await createPet(getDb(), user.id, petFieldsOf(submission.value), files)
  return json({ pet, message: 'Pet saved' }, { status: 201 })
})
