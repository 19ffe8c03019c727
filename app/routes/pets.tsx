import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { FieldError, FormError } from '#app/components/form-errors.tsx'
import { seo } from '#app/document/seo.ts'
import { readPetForm } from '#app/pets/pet-forms.server.ts'
import { ACCEPTED_IMAGES } from '#app/utils/accepted-images.ts'
import { readForm } from '#app/utils/form-body.server.ts'
import { formErrorResponse, type FormActionData } from '#app/utils/form-errors.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import {
  BREED_MAX,
  COLOURS_MAX,
  MARKINGS_MAX,
  MAX_PET_PHOTOS,
  PET_NAME_MAX,
  petFieldsOf,
  petFormSchema,
  SPECIES_MAX,
  SPECIES_SUGGESTIONS,
} from '#domain/pets/pet-form.ts'
import { petPhotosToSave } from '#domain/generation/task-pet-photos.server.ts'
import { createPet, deletePet, listPets, updatePet, type PetView } from '#domain/pets/pets.server.ts'
import { getDb } from '#platform/db.server.ts'

export const meta: MetaFunction = () =>
  seo({ title: 'My pets', description: 'Your saved pets, ready to pick in the portrait generator.' })

const NEW_PET = 'new'
const notices = { saved: 'Pet saved', updated: 'Pet updated', deleted: 'Pet deleted' } as const

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request)
  const done = new URL(request.url).searchParams.get('done')
  const notice = done && Object.hasOwn(notices, done) ? notices[done as keyof typeof notices] : null
  return json({ pets: await listPets(getDb(), user.id), notice })
}

/**
 * Without JavaScript too: the add and edit forms post their multipart fields (a hidden `id` tells
 * an edit), the delete buttons a plain form. Success redirects back with a notice; a refusal comes
 * back to the form it belongs to.
 */
export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request)
  if (!request.headers.get('content-type')?.startsWith('multipart/form-data')) {
    const id = String((await readForm(request)).get('id') ?? '')
    try {
      await deletePet(getDb(), user.id, id)
    } catch (error) {
      return formErrorResponse(error, undefined, { form: `delete-${id}` })
    }
    return redirect('/pets?done=deleted')
  }
  let submission
  try {
    submission = await readPetForm(request)
  } catch (error) {
    return formErrorResponse(error, undefined, { form: 'upload' })
  }
  const id = typeof submission.payload.id === 'string' ? submission.payload.id : NEW_PET
  if (submission.status !== 'success') {
    return json<FormActionData>({ result: submission.reply(), form: id }, { status: 400 })
  }
  const fields = petFieldsOf(submission.value)
  try {
    if (id === NEW_PET) {
      const { photos, fromTask } = submission.value
      await createPet(getDb(), user.id, fields, await petPhotosToSave(getDb(), user.id, photos, fromTask))
    } else {
      const { photos: add, removePhotos: remove } = submission.value
      await updatePet(getDb(), user.id, id, { fields, add, remove })
    }
  } catch (error) {
    return formErrorResponse(error, submission, { form: id })
  }
  return redirect(`/pets?done=${id === NEW_PET ? 'saved' : 'updated'}`)
}

export default function Pets() {
  const { pets, notice } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  // A refusal that could not be tied to a form (an upload too large to read).
  const uploadError = actionData?.form === 'upload' ? actionData.result.error?.[''] : null
  return (
    <section className="pets-page">
      <h1>My pets</h1>
      <p className="muted">
        Save your pet once, with up to {MAX_PET_PHOTOS} photos, and pick it in the generator instead of uploading again.
        Its breed, colours and markings help every portrait look like your pet.
      </p>
      {notice ? (
        <p className="form-success" role="status">
          {notice}
        </p>
      ) : null}
      <FormError errors={uploadError} id="pets-upload-error" />
      {pets.length > 0 ? (
        <ul className="pets-grid">
          {pets.map((pet) => (
            <PetCard key={pet.id} pet={pet} />
          ))}
        </ul>
      ) : null}
      <details className="card pet-add" open={pets.length === 0 || actionData?.form === NEW_PET}>
        <summary>Add a pet</summary>
        <PetEditor />
      </details>
    </section>
  )
}

function PetCard({ pet }: { pet: PetView }) {
  const actionData = useActionData<typeof action>()
  const navigation = useNavigation()
  const deleting = navigation.formData?.get('id') === pet.id && navigation.formMethod === 'POST'
  const deleteError = actionData?.form === `delete-${pet.id}` ? actionData.result.error?.['']?.[0] : undefined
  const kind = [pet.breed, pet.species].filter(Boolean).join(' ')
  return (
    <li className="card pet-card">
      <div className="pet-photos">
        {pet.photos.map((photo, index) => (
          <img key={photo.id} src={photo.url} alt={`${pet.name}, photo ${index + 1}`} loading="lazy" />
        ))}
      </div>
      <h2>{pet.name}</h2>
      <p className="muted">{kind}</p>
      {pet.colours ? <p>Colours: {pet.colours}</p> : null}
      {pet.markings ? <p>Markings: {pet.markings}</p> : null}
      <div className="row pet-actions">
        <Link className="button" to={`/generate?pet=${pet.id}`}>
          Use in the generator
        </Link>
        <Form method="post">
          <input type="hidden" name="id" value={pet.id} />
          <button type="submit" className="button secondary" disabled={deleting}>
            {deleting ? 'Deleting…' : `Delete ${pet.name}`}
          </button>
        </Form>
      </div>
      {deleteError ? <FieldError errors={[deleteError]} /> : null}
      <details className="pet-edit" open={actionData?.form === pet.id}>
        <summary>Edit {pet.name}</summary>
        <PetEditor pet={pet} />
      </details>
    </li>
  )
}

/** The add form (no pet) or a pet's edit form: the fields, its photos to keep or remove, new photos. */
function PetEditor({ pet }: { pet?: PetView }) {
  const id = pet?.id ?? NEW_PET
  const actionData = useActionData<typeof action>()
  const busy = useNavigation().state === 'submitting'
  const [form, fields] = useForm({
    id: `pet-${id}`,
    lastResult: actionData?.form === id ? actionData.result : undefined,
    defaultValue: pet
      ? { name: pet.name, species: pet.species, breed: pet.breed, colours: pet.colours, markings: pet.markings }
      : undefined,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: petFormSchema }),
  })
  const text = (
    field: (typeof fields)['name'],
    label: string,
    maxLength: number,
    options: { list?: string; placeholder?: string } = {},
  ) => {
    const { key, ...props } = getInputProps(field, { type: 'text' })
    return (
      <div className="field">
        <label htmlFor={field.id}>{label}</label>
        <input key={key} {...props} maxLength={maxLength} {...options} />
        <FieldError id={field.errorId} errors={field.errors} />
      </div>
    )
  }
  return (
    <Form method="post" encType="multipart/form-data" className="pet-form" {...getFormProps(form)}>
      <FormError errors={form.errors} id={form.errorId} />
      {pet ? <input type="hidden" name="id" value={pet.id} /> : null}
      {text(fields.name, 'Name', PET_NAME_MAX)}
      {text(fields.species, 'Species', SPECIES_MAX, { list: 'species-suggestions', placeholder: 'dog, cat …' })}
      <datalist id="species-suggestions">
        {SPECIES_SUGGESTIONS.map((species) => (
          <option key={species} value={species} />
        ))}
      </datalist>
      {text(fields.breed, 'Breed (optional)', BREED_MAX, { placeholder: 'Beagle' })}
      {text(fields.colours, 'Colours (optional)', COLOURS_MAX, { placeholder: 'tan and white' })}
      {text(fields.markings, 'Markings (optional)', MARKINGS_MAX, { placeholder: 'white blaze, one black ear' })}
      {pet ? (
        <fieldset className="pet-photo-choices">
          <legend>Photos to remove</legend>
          {pet.photos.map((photo, index) => (
            <label key={photo.id} className="pet-photo-choice">
              <input type="checkbox" name="removePhotos" value={photo.id} />
              <img src={photo.url} alt="" />
              Remove photo {index + 1}
            </label>
          ))}
        </fieldset>
      ) : null}
      <div className="field">
        <label htmlFor={fields.photos.id}>
          {pet ? 'Add photos' : 'Photos'} (up to {MAX_PET_PHOTOS} in all; JPEG, PNG, WebP or GIF, up to 10MB each)
        </label>
        <input id={fields.photos.id} name={fields.photos.name} type="file" multiple accept={ACCEPTED_IMAGES} />
        <FieldError id={fields.photos.errorId} errors={Object.values(fields.photos.allErrors).flat()} />
      </div>
      <button type="submit" className="button" disabled={busy}>
        {pet ? 'Save changes' : 'Save pet'}
      </button>
    </Form>
  )
}
