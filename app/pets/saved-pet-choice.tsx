import { getCollectionProps, type FieldMetadata } from '@conform-to/react'
import { FieldError } from '#app/components/form-errors.tsx'
import type { PetView } from '#domain/pets/pets.server.ts'

/** What a generator shows of a saved pet: its name and first photo. */
export interface SavedPetOption {
  id: string
  name: string
  photoUrl: string | null
}

export const toSavedPetOption = (pet: PetView): SavedPetOption => ({
  id: pet.id,
  name: pet.name,
  photoUrl: pet.photos[0]?.url ?? null,
})

interface SavedPetChoiceProps {
  pets: SavedPetOption[]
  field: FieldMetadata<string | undefined>
  onChange: (petId: string) => void
}

/**
 * "Use a saved pet": radio buttons named `petId`, one a pet, and "Upload a new photo" (an empty
 * value) that keeps the photo input. Plain radios, so the choice is posted without JavaScript too.
 */
export function SavedPetChoice({ pets, field, onChange }: SavedPetChoiceProps) {
  const names = new Map(pets.map((pet) => [pet.id, pet]))
  const options = getCollectionProps(field, { type: 'radio', options: ['', ...names.keys()] })
  return (
    <>
      <div className="saved-pets" role="radiogroup" aria-label="Use a saved pet">
        {options.map(({ key, ...props }) => {
          const pet = names.get(props.value)
          return (
            <label key={key} className={`saved-pet-option${pet ? '' : ' saved-pet-new'}`}>
              <input
                {...props}
                defaultChecked={props.value === (field.initialValue ?? '')}
                onChange={(event) => onChange(event.currentTarget.value)}
              />
              {pet?.photoUrl ? <img src={pet.photoUrl} alt="" /> : null}
              <span>{pet ? pet.name : 'Upload a new photo'}</span>
            </label>
          )
        })}
      </div>
      <FieldError id={field.errorId} errors={field.errors} />
    </>
  )
}
