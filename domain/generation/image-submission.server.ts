import type { User } from '#platform/db-schema.ts'
import type { DB } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { recordImageGeneration } from '#domain/analytics/events.server.ts'
import { badRequest } from '#domain/http-error.server.ts'
import { petGenerationInputs, type PetInputs } from '#domain/pets/pets.server.ts'
import { requireDrawableTitle } from '#domain/titles/title-check.server.ts'
import { titleOf } from '#domain/titles/title-options.ts'
import { pickGuided } from './guided-fields.ts'
import { generationMode, petCountOf, savedPetIds, type ImageGenerationForm } from './image-generation-form.ts'
import { imageRunCost } from './image-prices.ts'
import type { ImageTaskParams } from './image-task-params.ts'
import type { PortraitPet } from './portrait-pets.ts'
import { imageLimitOf } from './provider-image-limits.ts'
import { submitPaidTask } from './task-submission.server.ts'

/** The image generator's submission (POST /api/async-image/generate, the /generate page): a validated form as a paid task. */

/**
 * Pays for and queues an image task from a validated form (see submitPaidTask: the uploads are
 * sniffed, each pet photo checked, stored and, should the submission fail, deleted again), and
 * counts it for analytics. The traits the checks saw go on the params, for the prompt. Several pets
 * (saved ones, or a photo each) lead the images in their order; a title is checked drawable first.
 * Every refusal comes before any charge.
 */
export async function submitImageGeneration(
  db: DB,
  user: Pick<User, 'id'>,
  form: ImageGenerationForm,
  /** Who asked, for the analytics (platform/client-address.server.ts). */
  clientAddress: string,
) {
  const mode = generationMode(form)
  const title = titleOf(form)
  if (title) requireDrawableTitle(title)
  // Saved pets' photos (copied under the task, which owns its files) stand for the pet photo.
  const petIds = savedPetIds(form)
  const saved: PetInputs[] = []
  for (const petId of petIds) saved.push(await petGenerationInputs(db, user.id, petId))
  const petCount = petCountOf(form)
  const uploads = [...form.petPhotos, ...form.images]
  const imageCount = saved.reduce((sum, pet) => sum + pet.images.length, 0) + uploads.length
  const limit = imageLimitOf(getEnv().IMAGE_PROVIDERS)
  if (imageCount > limit) {
    throw badRequest(
      `The pets' photos and the references make ${imageCount} images; the image service takes at most ${limit}: choose fewer pets, photos or references`,
    )
  }
  const params: ImageTaskParams = {
    mode,
    style: form.style,
    guided: pickGuided(form),
    prompt: mode === 'guide' ? '' : form.prompt,
    templatePrompt: form.templatePrompt,
    templateId: form.template_id ?? null,
    quality: form.quality,
    ...petParams(form, petIds, saved),
    ...(title ? { title } : {}),
  }
  const fromTemplate = mode === 'template'
  const task = await submitPaidTask(
    db,
    {
      userId: user.id,
      kind: 'image',
      job: 'generate_image',
      source: fromTemplate ? 'template' : 'generate',
      params,
      provider: getEnv().IMAGE_PROVIDER,
      cost: (settings) => imageRunCost(settings, form.variants, form.quality, petCount),
      description: `${fromTemplate ? 'Image generation from a template' : 'Image generation'}${petCount > 1 ? ` of ${petCount} pets` : ''}${form.quality === 'hd' ? ' in HD' : ''}${versionsNote(form.variants)}`,
      variants: form.variants,
      // What each version gets back if it comes back smaller than HD: the prices of this moment.
      pricedParams: (settings) =>
        form.quality === 'hd'
          ? { hdShortfallRefund: Math.max(0, settings.hdImageCost - settings.imageGenerationCreditCost) }
          : {},
    },
    uploads,
    // Saved pets' photos were checked when saved; otherwise each pet's photo is checked now.
    {
      ...(saved.length > 0
        ? { checked: saved.flatMap((pet) => pet.images), petTraits: saved.map((pet) => pet.traits) }
        : { petPhotos: petCount }),
      withTraits: (params, traits) =>
        petCount > 1
          ? {
              ...params,
              pets: (params as ImageTaskParams).pets?.map((pet, index) => ({ ...pet, traits: traits[index] })),
            }
          : traits[0]
            ? { ...params, traits: traits[0] }
            : params,
      typed: typedText(params),
    },
  )
  recordImageGeneration(user.id, clientAddress, {
    taskId: task.taskId,
    fromTemplate,
    templateId: params.templateId,
  })
  return task
}

/** One pet: the older single fields; several: `pets` in order (a photo each, or saved pets with their photos). */
function petParams(form: ImageGenerationForm, petIds: string[], saved: PetInputs[]): Partial<ImageTaskParams> {
  if (saved.length === 1) {
    return { petId: petIds[0], petPhotoCount: saved[0].images.length, traits: saved[0].traits }
  }
  const pets: PortraitPet[] =
    saved.length > 1
      ? saved.map((pet, index) => ({
          name: pet.name,
          petId: petIds[index],
          photoCount: pet.images.length,
          traits: pet.traits,
        }))
      : form.petPhotos.map(() => ({ photoCount: 1 }))
  return pets.length > 1 ? { pets } : {}
}

const versionsNote = (variants: number) => (variants > 1 ? ` (${variants} versions)` : '')

/** An image run's free-text fields as one text to moderate (the personification choice is no text). */
function typedText(params: ImageTaskParams) {
  const guided = Object.entries(params.guided).filter(([field]) => field !== 'personification')
  return [params.prompt, params.templatePrompt, ...guided.map(([, text]) => text), params.title?.text]
    .filter(Boolean)
    .join('\n')
}
