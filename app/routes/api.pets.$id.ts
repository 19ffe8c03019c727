import { json } from '@remix-run/node'
import { readPetForm } from '#app/pets/pet-forms.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { submissionRefusal } from '#app/utils/form-errors.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { deletePet, updatePet } from '#domain/pets/pets.server.ts'
import { petFieldsOf } from '#domain/pets/pet-form.ts'
import { getDb } from '#platform/db.server.ts'

export const handle = apiMethods('PUT', 'DELETE')

/**
 * PUT /api/pets/{id} (multipart): replaces the pet's fields, removes the photos listed in
 * `removePhotos` (photo ids) and adds the files in `photos`; 1 to 3 photos must remain.
 * DELETE /api/pets/{id}: deletes the pet and its photos. Another user's pet is a 404.
 */
export const action = apiHandler(async ({ request, params }) => {
  requireMethod(request, handle)
  const user = await requireUser(request)
  const id = params.id ?? ''
  if (request.method === 'DELETE') {
    await deletePet(getDb(), user.id, id)
    return json({ message: 'Pet deleted' })
  }
  const submission = await readPetForm(request)
  if (submission.status !== 'success') throw submissionRefusal(submission.error)
  const { photos, removePhotos } = submission.value
  const change = { fields: petFieldsOf(submission.value), add: photos, remove: removePhotos }
  const pet = await updatePet(getDb(), user.id, id, change)
  return json({ pet, message: 'Pet updated' })
})
