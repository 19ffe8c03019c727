import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import {
  answerFavouriteForm,
  answerGenerationForm,
  isFavouriteForm,
  findShownTask,
  readImageGenerationForm,
} from '#app/generation/generation-forms.server.ts'
import { GeneratorShell } from '#app/generation/generator-shell.tsx'
import { PortraitForm, PORTRAITS } from '#app/generation/portrait-form.tsx'
import { toSavedPetOption } from '#app/pets/saved-pet-choice.tsx'
import { SavePetFromTask } from '#app/pets/save-pet-from-task.tsx'
import { listPets } from '#domain/pets/pets.server.ts'
import { DownloadLink, KeptInHistory, TaskProgress } from '#app/generation/result-panel.tsx'
import { TaskFamilyControls } from '#app/generation/task-family.tsx'
import { answerTaskFamilyForm } from '#app/generation/task-family-form.server.ts'
import { readForm } from '#app/utils/form-body.server.ts'
import { findTaskFamily, type TaskFamilyView } from '#domain/generation/task-family.server.ts'
import { isActive } from '#app/generation/task-status.ts'
import type { ClientTask } from '#domain/generation/task-view.ts'
import { seo } from '#app/document/seo.ts'
import { listTemplates } from '#domain/gallery/templates.server.ts'
import { ShareForm } from '#app/sharing/share-form.tsx'
import { OrderPrintLink } from '#app/prints/order-print-link.tsx'
import { listStyles } from '#domain/gallery/styles.server.ts'
import { getSystemConfig } from '#domain/credits/system-config.server.ts'
import { PrintNote } from '#app/generation/print-note.tsx'
import { MadeBy } from '#app/generation/made-by.tsx'
import { TaskVersions } from '#app/generation/task-versions.tsx'
import { TitleForm } from '#app/generation/title-form.tsx'
import { answerTitleForm, isTitleForm } from '#app/generation/title-form.server.ts'
import { extraPetsCost } from '#domain/generation/image-prices.ts'
import { isGeneratorStyle } from '#domain/generation/prompt.ts'
import { submitImageGeneration } from '#domain/generation/image-submission.server.ts'
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
    extraPetCost: settings.extraPetCost,
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
  // A url-encoded post is one of the result panel's plain forms: favourite, name, re-roll or likeness fix.
  if (request.headers.get('content-type')?.startsWith('application/x-www-form-urlencoded')) {
    const form = await readForm(request)
    if (isFavouriteForm(form)) return answerFavouriteForm(form, user.id, (id) => `${PORTRAITS.page}?task=${id}`)
    if (isTitleForm(form)) return answerTitleForm(form, user.id, (id) => `${PORTRAITS.page}?task=${id}`)
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
    extraPetCost,
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
          extraPetCost={extraPetCost}
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
          cost={cost + extraPetsCost({ extraPetCost }, shown.pets?.length ?? 1)}
          freeLikenessFixes={freeLikenessFixes}
          upscaleCost={upscaleCost}
          family={shown.id === task?.id ? family : null}
        />
      )}
    />
  )
}

interface PortraitResultProps {
  task: ClientTask
  /** What a re-roll or a paid fix of this task costs: a version, with its extra pets. */
  cost: number
  freeLikenessFixes: number
  upscaleCost: number
  /** The shown task's family, when the loader found the task. */
  family: TaskFamilyView | null
}

function PortraitResult({ task, cost, freeLikenessFixes, upscaleCost, family }: PortraitResultProps) {
  const url = task.result?.imageUrl
  const favourite = task.images?.find((image) => image.index === (task.favouriteIndex ?? 0))
  return (
    <>
      {url && (task.images?.length ?? 0) > 1 ? (
        <TaskVersions task={task} action={`${PORTRAITS.page}?task=${task.id}`} enhance />
      ) : url ? (
        <>
          <img className="generate-image" src={url} alt="Your generated pet portrait" />
          <PrintNote print={task.result?.print} />
          <div className="row">
            <DownloadLink task={task} url={url}>
              Download
            </DownloadLink>
            {favourite?.plainUrl ? (
              <DownloadLink task={task} url={favourite.plainUrl} className="button secondary">
                Download without the name
              </DownloadLink>
            ) : null}
          </div>
          <MadeBy image={favourite} />
          {task.status === 'completed' ? (
            <>
              <OrderPrintLink taskId={task.id} index={task.favouriteIndex ?? 0} />
              <ShareForm taskId={task.id} index={task.favouriteIndex ?? 0} />
            </>
          ) : null}
        </>
      ) : isActive(task) ? (
        <TaskProgress task={task} page={PORTRAITS.page} />
      ) : null}
      {task.status === 'completed' && favourite ? (
        <TitleForm taskId={task.id} image={favourite} action={`${PORTRAITS.page}?task=${task.id}`} />
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
