import type { User } from '#platform/db-schema.ts'
import type { DB } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { recordImageGeneration } from '#domain/analytics/events.server.ts'
import { petGenerationInputs } from '#domain/pets/pets.server.ts'
import { pickGuided } from './guided-fields.ts'
import { generationMode, imageRunCost, type ImageGenerationForm } from './image-generation-form.ts'
import type { ImageTaskParams } from './image-task-params.ts'
import { submitPaidTask } from './task-submission.server.ts'

/** The image generator's submission (POST /api/async-image/generate, the /generate page): a validated form as a paid task. */

/**
 * Pays for and queues an image task from a validated form (see submitPaidTask: the uploads are
 * sniffed, the pet photo checked, stored and, should the submission fail, deleted again), and
 * counts it for analytics. The traits the check saw go on the params, for the prompt.
 */
export async function submitImageGeneration(
  db: DB,
  user: Pick<User, 'id'>,
  form: ImageGenerationForm,
  /** Who asked, for the analytics (platform/client-address.server.ts). */
  clientAddress: string,
) {
  const mode = generationMode(form)
  // A saved pet's photos (copied under the task, which owns its files) stand for the pet photo.
  const pet = form.petId ? await petGenerationInputs(db, user.id, form.petId) : null
  const params: ImageTaskParams = {
    mode,
    style: form.style,
    guided: pickGuided(form),
    prompt: mode === 'guide' ? '' : form.prompt,
    templatePrompt: form.templatePrompt,
    templateId: form.template_id ?? null,
    quality: form.quality,
    ...(pet && form.petId ? { petId: form.petId, petPhotoCount: pet.images.length, traits: pet.traits } : {}),
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
      cost: (settings) => imageRunCost(settings, form.variants, form.quality),
      description: `${fromTemplate ? 'Image generation from a template' : 'Image generation'}${form.quality === 'hd' ? ' in HD' : ''}${versionsNote(form.variants)}`,
      variants: form.variants,
      // What each version gets back if it comes back smaller than HD: the prices of this moment.
      pricedParams: (settings) =>
        form.quality === 'hd'
          ? { hdShortfallRefund: Math.max(0, settings.hdImageCost - settings.imageGenerationCreditCost) }
          : {},
    },
    form.images,
    // With a saved pet the uploads are references; its photos were checked when saved.
    { ...(pet ? { checked: pet.images, petTraits: pet.traits } : { petPhoto: true }), typed: typedText(params) },
  )
  recordImageGeneration(user.id, clientAddress, {
    taskId: task.taskId,
    fromTemplate,
    templateId: params.templateId,
  })
  return task
}

const versionsNote = (variants: number) => (variants > 1 ? ` (${variants} versions)` : '')

/** An image run's free-text fields as one text to moderate (the personification choice is no text). */
function typedText(params: ImageTaskParams) {
  const guided = Object.entries(params.guided).filter(([field]) => field !== 'personification')
  return [params.prompt, params.templatePrompt, ...guided.map(([, text]) => text)].filter(Boolean).join('\n')
}
