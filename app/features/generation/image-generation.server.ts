import { parseWithZod } from '@conform-to/zod'
import type { User } from '#platform/db-schema.ts'
import type { DB } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { generationMode, imageGenerationSchema, MAX_IMAGES, type ImageGenerationForm } from './image-generation-form.ts'
import { readMultipartForm } from '#app/utils/multipart.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'
import { PROMPT_MAX_LENGTH } from './prompt.ts'
import { recordImageGeneration } from '#app/features/analytics/events.server.ts'
import type { ImageTaskParams } from './image-task-params.ts'
import { submitPaidTask } from './task-submission.server.ts'

/**
 * Reads the multipart form within its limits (10 MB a file, six files, short text fields; 413/400
 * otherwise) and validates it. The submission is answered as is so a page can reply with it.
 */
export async function readImageGenerationForm(request: Request) {
  const formData = await readMultipartForm(request, {
    maxFiles: MAX_IMAGES,
    // Room for the longest prompt in any script (UTF-8 takes up to 4 bytes a character).
    maxTextFieldBytes: PROMPT_MAX_LENGTH * 4,
  })
  return parseWithZod(formData, { schema: imageGenerationSchema })
}

/**
 * Pays for and queues an image task from a validated form (see submitPaidTask: the uploads are
 * sniffed, stored and, should the submission fail, deleted again), and counts it for analytics.
 */
export async function submitImageGeneration(
  db: DB,
  user: Pick<User, 'id'>,
  form: ImageGenerationForm,
  request: Request,
) {
  const mode = generationMode(form)
  const params: ImageTaskParams = {
    mode,
    style: form.style,
    guided: {
      personification: form.personification,
      clothingTop: form.clothingTop,
      accessories: form.accessories,
      clothingPants: form.clothingPants,
      clothingShoes: form.clothingShoes,
      action: form.action,
      background: form.background,
    },
    prompt: mode === 'guide' ? '' : form.prompt,
    templatePrompt: form.templatePrompt,
    templateId: form.template_id ?? null,
  }
  const fromTemplate = mode === 'template'
  const task = await submitPaidTask(
    db,
    {
      userId: user.id,
      kind: 'image',
      source: fromTemplate ? 'template' : 'generate',
      params,
      provider: getEnv().IMAGE_PROVIDER,
      cost: (settings) => settings.imageGenerationCreditCost,
      description: fromTemplate ? 'Image generation from a template' : 'Image generation',
    },
    form.images,
  )
  recordImageGeneration(user.id, getClientAddress(request), {
    taskId: task.taskId,
    fromTemplate,
    templateId: params.templateId,
  })
  return task
}
