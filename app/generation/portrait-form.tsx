import { Link } from '@remix-run/react'
import { useState } from 'react'
import { CostButton } from '#app/generation/cost.tsx'
import type { Generator, TaskFollow } from '#app/generation/generation-request.ts'
import { GeneratorForm, useGeneratorForm } from '#app/generation/generator-form.tsx'
import { ModeSwitch } from '#app/generation/generator-fields.tsx'
import { PhotoCheckNote, usePhotoCheck } from '#app/generation/photo-check-note.tsx'
import { PhotoUpload, useFilePreview } from '#app/generation/photo-upload.tsx'
import {
  CustomizeFields,
  GuideFields,
  StyleChoice,
  TemplatePanel,
  useTemplateHandoff,
  PORTRAIT_MODES,
  type PortraitMode,
} from '#app/generation/portrait-fields.tsx'
import { MorePets } from '#app/generation/more-pets.tsx'
import { QualityChoice } from '#app/generation/quality-choice.tsx'
import { TitleFields } from '#app/generation/title-fields.tsx'
import { VersionsChoice } from '#app/generation/versions-choice.tsx'
import { useHydrated } from '#app/hooks/use-hydrated.ts'
import { useRootData } from '#app/hooks/use-root-data.ts'
import { SavedPetChoice, type SavedPetOption } from '#app/pets/saved-pet-choice.tsx'
import type { StyleJson, TemplateHandoff } from '#domain/gallery/template-json.ts'
import { imageGenerationSchema, MAX_IMAGE_MB } from '#domain/generation/image-generation-form.ts'
import { extraPetsCost, imageRunCost, imageVersionCost, type ImageQuality } from '#domain/generation/image-prices.ts'
import { FieldError } from '#app/components/form-errors.tsx'

/** The portrait generator (/generate): its page, its texts and its purchase dialog. */
export const PORTRAITS: Generator = {
  page: '/generate',
  loginMessage: 'Please log in first to generate images',
  genericFailure: 'Failed to generate the image, please try again later.',
  purchaseTitle: 'Free Usage Limit Reached',
  purchaseNote: <p className="muted">Purchase credits to keep creating portraits of your pet.</p>,
}

/**
 * The portrait generator's form (/generate): saved pets or a photo each (the first checked on
 * upload), up to four in order, a style in Guide or Customize mode (or a template handed over by the
 * gallery), an optional name with its preview, the quality and the number of versions, and the price. Posted to the page's action, through a fetcher once JavaScript runs.
 */
interface PortraitFormProps {
  styles: StyleJson[]
  cost: number
  hdCost: number
  extraPetCost: number
  follow: TaskFollow
  pets: SavedPetOption[]
  chosenPet: string | null
  chosenStyle: string | null
  linkedTemplate: TemplateHandoff | null
}

export function PortraitForm({
  styles,
  cost,
  hdCost,
  extraPetCost,
  follow,
  pets,
  chosenPet,
  chosenStyle,
  linkedTemplate,
}: PortraitFormProps) {
  const user = useRootData()?.user
  // Without JavaScript both modes' fields stay enabled (CSS shows the chosen one's).
  const hydrated = useHydrated()
  const [template, clearTemplate] = useTemplateHandoff(hydrated, linkedTemplate)
  const [mode, setMode] = useState<PortraitMode>('guide')
  const [photoPreview, showPhoto] = useFilePreview()
  const [petId, setPetId] = useState(chosenPet ?? '')
  // Without JavaScript the photo input stays too: left empty, the chosen pet's photos are used.
  const petChosen = hydrated && petId !== ''
  const [photoCheck, checkPhoto] = usePhotoCheck()
  const [variants, setVariants] = useState(1)
  const [quality, setQuality] = useState<ImageQuality>('standard')
  const [morePets, setMorePets] = useState(0)
  const prices = { imageGenerationCreditCost: cost, hdImageCost: hdCost, extraPetCost }
  const { form, fields, submitting, needPurchase } = useGeneratorForm(PORTRAITS, follow, {
    id: 'generate',
    schema: imageGenerationSchema,
    defaultValue: { style: chosenStyle ?? 'general', mode: 'guide', personification: 'no', petId: chosenPet ?? '' },
    task: { type: 'image', source: template ? 'template' : 'generate' },
  })

  return (
    <GeneratorForm form={form} needPurchase={needPurchase}>
      <fieldset className="generate-step">
        <legend>{pets.length > 0 ? 'Step 1: Use saved pets or upload photos' : 'Step 1: Upload a pet photo'}</legend>
        {pets.length > 0 ? <SavedPetChoice pets={pets} field={fields.petId} onChange={setPetId} /> : null}
        <fieldset className="photo-upload-step" disabled={petChosen} hidden={petChosen}>
          <legend className="visually-hidden">Upload a new photo</legend>
          <PhotoUpload
            field={fields.petPhotos}
            label="Pet photo"
            preview={photoPreview}
            alt="Your pet photo"
            hint={<>Choose a clear photo of your pet (JPEG, PNG, WebP or GIF, up to {MAX_IMAGE_MB}MB)</>}
            onChange={(event) => {
              showPhoto(event.currentTarget.files?.[0])
              void checkPhoto(event.currentTarget.files?.[0])
            }}
            errors={[fields.images, fields.petPhotos].flatMap((field) => Object.values(field.allErrors).flat())}
          />
          <PhotoCheckNote state={photoCheck} />
        </fieldset>
        <MorePets
          pets={pets}
          extraPetCost={extraPetCost}
          firstIsSaved={hydrated ? petChosen : null}
          onCount={setMorePets}
        />
        <FieldError id={fields.petIds.errorId} errors={Object.values(fields.petIds.allErrors).flat()} />
        {user ? (
          <p className="muted">
            <Link to="/pets">{pets.length > 0 ? 'Manage your saved pets' : 'Save your pet'}</Link> to pick it here
            instead of uploading again.
          </p>
        ) : null}
      </fieldset>

      <fieldset className="generate-step">
        <legend>Step 2: Describe the portrait</legend>
        {template ? (
          <TemplatePanel template={template} onClear={clearTemplate} />
        ) : (
          <>
            <StyleChoice styles={styles} field={fields.style} />
            <ModeSwitch
              aria-label="Mode"
              field={fields.mode}
              options={PORTRAIT_MODES}
              label={(value) => (value === 'guide' ? 'Guide mode' : 'Customize mode')}
              onChange={setMode}
            />
          </>
        )}

        <fieldset className="guide-fields" disabled={hydrated && mode === 'customize' && !template}>
          <legend className="visually-hidden">Guided options</legend>
          <GuideFields fields={fields} template={template} />
        </fieldset>

        {template ? null : (
          <fieldset className="customize-fields" disabled={hydrated && mode === 'guide'}>
            <legend className="visually-hidden">Custom prompt</legend>
            <CustomizeFields prompt={fields.prompt} />
          </fieldset>
        )}
      </fieldset>

      <fieldset className="generate-step">
        <legend>Step 3: A name on the portrait</legend>
        <TitleFields
          names={{ title: 'title', style: 'titleStyle', font: 'titleFont' }}
          errors={Object.values(fields.title.allErrors).flat()}
          idPrefix="generate"
        />
      </fieldset>

      <QualityChoice standardCost={cost} hdCost={hdCost} value={quality} onChange={setQuality} />
      <VersionsChoice
        unitCost={imageVersionCost(prices, quality) + extraPetsCost(prices, 1 + morePets)}
        value={variants}
        onChange={setVariants}
        errors={Object.values(fields.variants.allErrors).flat()}
      />
      <CostButton label="Generate" cost={imageRunCost(prices, variants, quality, 1 + morePets)} submitting={submitting}>
        {user ? (
          <>You have {user.credits} credits.</>
        ) : (
          <>
            <Link to={`/login?redirectTo=${PORTRAITS.page}`}>Log in</Link> to generate portraits.
          </>
        )}
      </CostButton>
    </GeneratorForm>
  )
}
