import type { GenerationTask } from '#platform/db-schema.ts'

/**
 * The stored photo a task was made from: the uploads under its own prefix (`tasks/<id>/`) or, for
 * a re-roll or likeness fix, which reuses its family's photo (decision 0030), under its family
 * root's. An upscale is made from a portrait (its parent's result), not a photo: it has none, so
 * "Delete my photo now" or "Save this pet" on it can never reach a result (issue 38).
 */
export function taskPhotoKeys(task: Pick<GenerationTask, 'id' | 'source' | 'family_root_id' | 'input_keys'>) {
  if (task.source === 'upscale') return []
  const prefixes = [task.id, task.family_root_id].flatMap((id) => (id ? [`tasks/${id}/`] : []))
  return task.input_keys.filter((key) => prefixes.some((prefix) => key.startsWith(prefix)))
}
