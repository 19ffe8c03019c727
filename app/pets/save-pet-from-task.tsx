import { Form } from '@remix-run/react'
import { PET_NAME_MAX, SPECIES_MAX } from '#domain/pets/pet-form.ts'

/**
 * "Save this pet" under a generator's result: the photo just used becomes a saved pet (posted to
 * /pets with `fromTask`), so the next run picks it instead of uploading again. A plain form.
 */
export function SavePetFromTask({ taskId }: { taskId: string }) {
  return (
    <details className="save-pet">
      <summary>Save this pet</summary>
      <Form method="post" action="/pets" encType="multipart/form-data" className="save-pet-form">
        <input type="hidden" name="fromTask" value={taskId} />
        <div className="field">
          <label htmlFor={`save-pet-name-${taskId}`}>Pet&apos;s name</label>
          <input id={`save-pet-name-${taskId}`} name="name" required maxLength={PET_NAME_MAX} />
        </div>
        <div className="field">
          <label htmlFor={`save-pet-species-${taskId}`}>Species</label>
          <input
            id={`save-pet-species-${taskId}`}
            name="species"
            required
            maxLength={SPECIES_MAX}
            placeholder="dog, cat …"
          />
        </div>
        <button type="submit" className="button secondary">
          Save pet
        </button>
        <p className="muted">Add its breed, colours and markings on My Pets.</p>
      </Form>
    </details>
  )
}
