import type { FormEvent } from 'react'
import type { SavedPetOption } from '#app/pets/saved-pet-choice.tsx'
import { ACCEPTED_IMAGES } from '#app/utils/accepted-images.ts'
import { MAX_PETS, petOrdinal } from '#domain/generation/portrait-pets.ts'
import { credits } from './credits-label.ts'

interface MorePetsProps {
  pets: SavedPetOption[]
  extraPetCost: number
  /** Whether the first pet is a saved one (with JavaScript: only the matching inputs show). */
  firstIsSaved: boolean | null
  /** How many more pets are chosen, whenever it changes. */
  onCount: (count: number) => void
}

/**
 * "More pets in this portrait" (issue 41): up to three more, after the first, in order: a saved
 * pet each (`petIds`, after the first's `petId`), or a photo each (`petPhotos`, after the first's).
 * Plain selects and file inputs inside a <details>, so it works without JavaScript; the price of
 * an extra pet is said beside them.
 */
export function MorePets({ pets, extraPetCost, firstIsSaved, onCount }: MorePetsProps) {
  const slots = Array.from({ length: MAX_PETS - 1 }, (_, index) => index + 1)
  function count(event: FormEvent<HTMLElement>) {
    const inputs = [...event.currentTarget.querySelectorAll<HTMLInputElement | HTMLSelectElement>('select, input')]
    onCount(inputs.filter((input) => !input.disabled && input.value !== '').length)
  }
  return (
    <details className="more-pets" onChange={count}>
      <summary>More pets in this portrait (up to {MAX_PETS - 1} more)</summary>
      <p className="muted">
        Each pet beyond the first adds {credits(extraPetCost)} to every version. Pets appear in the order chosen here.
      </p>
      {pets.length > 0 ? (
        <fieldset className="more-pets-saved" disabled={firstIsSaved === false} hidden={firstIsSaved === false}>
          <legend>Saved pets</legend>
          {slots.map((slot) => (
            <div className="field" key={slot}>
              <label htmlFor={`more-pet-${slot}`}>{capitalised(petOrdinal(slot))} pet</label>
              <select id={`more-pet-${slot}`} name="petIds" defaultValue="">
                <option value="">None</option>
                {pets.map((pet) => (
                  <option key={pet.id} value={pet.id}>
                    {pet.name}
                  </option>
                ))}
              </select>
            </div>
          ))}
        </fieldset>
      ) : null}
      <fieldset className="more-pets-photos" disabled={firstIsSaved === true} hidden={firstIsSaved === true}>
        <legend>{pets.length > 0 ? 'Or a photo of each' : 'A photo of each'}</legend>
        {slots.map((slot) => (
          <div className="field" key={slot}>
            <label htmlFor={`more-pet-photo-${slot}`}>Photo of the {petOrdinal(slot)} pet</label>
            <input id={`more-pet-photo-${slot}`} type="file" name="petPhotos" accept={ACCEPTED_IMAGES} />
          </div>
        ))}
      </fieldset>
    </details>
  )
}

const capitalised = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)
