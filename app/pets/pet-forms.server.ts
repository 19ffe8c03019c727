import { parseWithZod } from '@conform-to/zod'
import { readMultipartForm } from '#app/utils/multipart.server.ts'
import { MAX_PET_PHOTOS, petFormSchema } from '#domain/pets/pet-form.ts'

/**
 * Reads a pet's multipart form (POST/PUT /api/pets and the /pets page) within its limits: at most
 * MAX_PET_PHOTOS files of 10 MB (413/400 otherwise), short text fields. Answered as a conform
 * submission so a page can reply with it.
 */
export async function readPetForm(request: Request) {
  const formData = await readMultipartForm(request, { maxFiles: MAX_PET_PHOTOS, maxTextFieldBytes: 4_000 })
  return parseWithZod(formData, { schema: petFormSchema })
}
