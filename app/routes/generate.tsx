import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { useState } from 'react'
import { CostButton } from '#app/generation/cost.tsx'
import {
  answerFavouriteForm,
  answerGenerationForm,
  isFavouriteForm,
  findShownTask,
  readImageGenerationForm,
} from '#app/generation/generation-forms.server.ts'
import type { Generator, TaskFollow } from '#app/generation/generation-request.ts'
import { GeneratorForm, useGeneratorForm } from '#app/generation/generator-form.tsx'
import { GeneratorShell } from '#app/generation/generator-shell.tsx'
import { ModeSwitch } from '#app/generation/generator-fields.tsx'
import { PhotoUpload, useFilePreview } from '#app/generation/photo-upload.tsx'
import { SavedPetChoice, toSavedPetOption, type SavedPetOption } from '#app/pets/saved-pet-choice.tsx'
import { SavePetFromTask } from '#app/pets/save-pet-from-task.tsx'
import { listPets } from '#domain/pets/pets.server.ts'
import { PhotoCheckNote, usePhotoCheck } from '#app/generation/photo-check-note.tsx'
import {
  CustomizeFields,
  GuideFields,
  StyleChoice,
  TemplatePanel,
  useTemplateHandoff,
  PORTRAIT_MODES,
  type PortraitMode,
} from '#app/generation/portrait-fields.tsx'
import { DownloadLink, KeptInHistory, TaskProgress } from '#app/generation/result-panel.tsx'
import { TaskFamilyControls } from '#app/generation/task-family.tsx'
import { answerTaskFamilyForm } from '#app/generation/task-family-form.server.ts'
import { readForm } from '#app/utils/form-body.server.ts'
import { findTaskFamily, type TaskFamilyView } from '#domain/generation/task-family.server.ts'
import { isActive } from '#app/generation/task-status.ts'
import type { ClientTask } from '#domain/generation/task-view.ts'
import { seo } from '#app/document/seo.ts'
import { useHydrated } from '#app/hooks/use-hydrated.ts'
import { useRootData } from '#app/hooks/use-root-data.ts'
import type { StyleJson, TemplateHandoff } from '#domain/gallery/gallery-shared.ts'
import { listTemplates } from '#domain/gallery/templates.server.ts'
import { ShareForm } from '#app/sharing/share-form.tsx'
import { listStyles } from '#domain/gallery/styles.server.ts'
import { getSystemConfig } from '#domain/credits/system-config.server.ts'
import {
  imageGenerationSchema,
  imageRunCost,
  imageVersionCost,
  MAX_IMAGE_MB,
  type ImageQuality,
} from '#domain/generation/image-generation-form.ts'
import { QualityChoice } from '#app/generation/quality-choice.tsx'
import { PrintNote } from '#app/generation/print-note.tsx'
import { VersionsChoice } from '#app/generation/versions-choice.tsx'
import { MadeBy } from '#app/generation/made-by.tsx'
import { TaskVersions } from '#app/generation/task-versions.tsx'
import { isGeneratorStyle } from '#domain/generation/prompt.ts'
import { submitImageGeneration } from '#domain/generation/task-submission.server.ts'
import { getOptionalUser } from '#domain/sessions/auth.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'

export const meta: MetaFunction = () =>
  seo({
    title: 'Generate a pet portrait',
    description: 'Upload a photo of your pet and turn it into an AI portrait in the style you choose.',
    keywords: 'pet portrait, AI pet art, dog portrait, cat portrait, pet photo generator',
    jsonLd: {
      '@context': 'https://schema.org',
      '@type': 'SoftwareApplication',
      name: 'Pawtrait pet portrait generator',
      applicationCategory: 'MultimediaApplication',
      operatingSystem: 'Web',
    },
  })

const PORTRAITS: Generator = {
  page: '/generate',
  loginMessage: 'Please log in first to generate images',
  genericFailure: 'Failed to generate the image, please try again later.',
  purchaseTitle: 'Free Usage Limit Reached',
  purchaseNote: <p className="muted">Purchase credits to keep creating portraits of your pet.</p>,
}

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await getOptionalUser(request)
  const db = getDb()
  const [styles, settings, task, pets] = await Promise.all([
    listStyles(db, 'generator'),
    getSystemConfig(db),
    findShownTask(request, user?.id, 'image'),
    user ? listPets(db, user.id) : [],
  ])
  // `?pet=<id>` (the /pets page's "Use in the generator") starts with that pet chosen; `?style=`
  // or `?template=<id>` (a share page's "Make one of my pet") with that style or template.
  const search = new URL(request.url).searchParams
  const chosen = search.get('pet')
  const linkedTemplate = search.get('template')
    ? (await listTemplates(db)).find((template) => template._id === search.get('template'))
    : undefined
  return json({
    styles: styles.filter((style) => isGeneratorStyle(style.value)),
    cost: settings.imageGenerationCreditCost,
    hdCost: settings.hdImageCost,
    freeLikenessFixes: settings.freeLikenessFixes,
    upscaleCost: settings.upscaleCost,
    offlineRenderer: getEnv().IMAGE_PROVIDER === 'local',
    task,
    family: user && task ? await findTaskFamily(db, user.id, task.id) : null,
    pets: pets.map(toSavedPetOption),
    chosenPet: pets.some((pet) => pet.id === chosen) ? chosen : null,
    chosenStyle: styles.some((style) => style.value === search.get('style')) ? search.get('style') : null,
    linkedTemplate: linkedTemplate
      ? {
          prompt: linkedTemplate.parameters.prompt || linkedTemplate.parameters.otherParams.templatePrompt,
          otherParams: linkedTemplate.parameters.otherParams,
          templateId: linkedTemplate._id,
        }
      : null,
  })
}

/**
 * The same submission as the API, for browsers without JavaScript; a url-encoded post is the
 * result panel's Make favourite, Re-roll or likeness fix form.
 */
export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request)
  // A url-encoded post is one of the result panel's plain forms: favourite, re-roll or likeness fix.
  if (request.headers.get('content-type')?.startsWith('application/x-www-form-urlencoded')) {
    const form = await readForm(request)
    if (isFavouriteForm(form)) return answerFavouriteForm(form, user.id, (id) => `${PORTRAITS.page}?task=${id}`)
    return answerTaskFamilyForm(request, form, user.id)
  }
  return answerGenerationForm({
    read: () => readImageGenerationForm(request),
    submit: (form) => submitImageGeneration(getDb(), user, form, getClientAddress(request)),
    page: PORTRAITS.page,
  })
}

export default function Generate() {
  const {
    styles,
    cost,
    hdCost,
    offlineRenderer,
    task,
    family,
    freeLikenessFixes,
    upscaleCost,
    pets,
    chosenPet,
    chosenStyle,
    linkedTemplate,
  } = useLoaderData<typeof loader>()
  return (
    <GeneratorShell
      generator={PORTRAITS}
      loadedTask={task}
      className="generate"
      title="Generate a pet portrait"
      offlineNotice={
        offlineRenderer
          ? 'The offline renderer is in use: portraits are drawn on this server from your photo, without an AI model.'
          : null
      }
      form={(follow) => (
        <PortraitForm
          styles={styles}
          cost={cost}
          hdCost={hdCost}
          follow={follow}
          pets={pets}
          chosenPet={chosenPet}
          chosenStyle={chosenStyle}
          linkedTemplate={linkedTemplate}
        />
      )}
      placeholder="Your portrait will appear here. You can follow every task in Today's Tasks."
      result={(shown) => (
        <PortraitResult
          task={shown}
          cost={cost}
          freeLikenessFixes={freeLikenessFixes}
          upscaleCost={upscaleCost}
          family={shown.id === task?.id ? family : null}
        />
      )}
    />
  )
}

interface PortraitFormProps {
  styles: StyleJson[]
  cost: number
  hdCost: number
  follow: TaskFollow
  pets: SavedPetOption[]
  chosenPet: string | null
  chosenStyle: string | null
  linkedTemplate: TemplateHandoff | null
}

function PortraitForm({
  styles,
  cost,
  hdCost,
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
  const prices = { imageGenerationCreditCost: cost, hdImageCost: hdCost }
  const { form, fields, submitting, needPurchase } = useGeneratorForm(PORTRAITS, follow, {
    id: 'generate',
    schema: imageGenerationSchema,
    defaultValue: { style: chosenStyle ?? 'general', mode: 'guide', personification: 'no', petId: chosenPet ?? '' },
    task: { type: 'image', source: template ? 'template' : 'generate' },
  })

  return (
    <GeneratorForm form={form} needPurchase={needPurchase}>
      <fieldset className="generate-step">
        <legend>{pets.length > 0 ? 'Step 1: Use a saved pet or upload a photo' : 'Step 1: Upload a pet photo'}</legend>
        {pets.length > 0 ? <SavedPetChoice pets={pets} field={fields.petId} onChange={setPetId} /> : null}
        <fieldset className="photo-upload-step" disabled={petChosen} hidden={petChosen}>
          <legend className="visually-hidden">Upload a new photo</legend>
          <PhotoUpload
            field={fields.images}
            label="Pet photo"
            preview={photoPreview}
            alt="Your pet photo"
            hint={<>Choose a clear photo of your pet (JPEG, PNG, WebP or GIF, up to {MAX_IMAGE_MB}MB)</>}
            onChange={(event) => {
              showPhoto(event.currentTarget.files?.[0])
              void checkPhoto(event.currentTarget.files?.[0])
            }}
            errors={Object.values(fields.images.allErrors).flat()}
          />
          <PhotoCheckNote state={photoCheck} />
        </fieldset>
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

      <QualityChoice standardCost={cost} hdCost={hdCost} value={quality} onChange={setQuality} />
      <VersionsChoice
        unitCost={imageVersionCost(prices, quality)}
        value={variants}
        onChange={setVariants}
        errors={Object.values(fields.variants.allErrors).flat()}
      />
      <CostButton label="Generate" cost={imageRunCost(prices, variants, quality)} submitting={submitting}>
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

interface PortraitResultProps {
  task: ClientTask
  cost: number
  freeLikenessFixes: number
  upscaleCost: number
  /** The shown task's family, when the loader found the task. */
  family: TaskFamilyView | null
}

function PortraitResult({ task, cost, freeLikenessFixes, upscaleCost, family }: PortraitResultProps) {
  const url = task.result?.imageUrl
  return (
    <>
      {url && (task.images?.length ?? 0) > 1 ? (
        <TaskVersions task={task} action={`${PORTRAITS.page}?task=${task.id}`} enhance />
      ) : url ? (
        <>
          <img className="generate-image" src={url} alt="Your generated pet portrait" />
          <PrintNote print={task.result?.print} />
          <DownloadLink task={task} url={url}>
            Download
          </DownloadLink>
          <MadeBy image={task.images?.find((image) => image.index === (task.favouriteIndex ?? 0))} />
          {task.status === 'completed' ? <ShareForm taskId={task.id} index={task.favouriteIndex ?? 0} /> : null}
        </>
      ) : isActive(task) ? (
        <TaskProgress task={task} page={PORTRAITS.page} />
      ) : null}
      <TaskFamilyControls
        task={task}
        cost={cost}
        family={family}
        freeLikenessFixes={freeLikenessFixes}
        upscaleCost={upscaleCost}
        action={`${PORTRAITS.page}?task=${task.id}`}
      />
      <KeptInHistory what="All your portraits are" history="/history" />
      <SavePetFromTask taskId={task.id} />
    </>
  )
}
