import { getSystemConfig } from '#domain/credits/system-config.server.ts'
import { json, type LoaderFunctionArgs, redirect } from '@remix-run/node'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'
import { readForm } from '#app/utils/form-body.server.ts'
import { safeRedirectPath } from '#app/utils/redirect-to.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { getStorage } from '#platform/storage.server.ts'
import { deleteTemplate, listTemplates } from '#domain/gallery/templates.server.ts'
import { listStyles } from '#domain/gallery/styles.server.ts'
import type { GalleryTemplate, TemplateJson } from '#domain/gallery/template-json.ts'
import { getOptionalUserId } from '#domain/sessions/auth.server.ts'

/**
 * The loader and action behind / and /inspiration (one screen, two URLs). The loader answers every
 * image: the browser filters by ?style= itself, so switching categories needs no round trip.
 */
export async function loadGallery({ request }: LoaderFunctionArgs) {
  const db = getDb()
  const [styles, templates, settings, userId] = await Promise.all([
    listStyles(db),
    listTemplates(db),
    getSystemConfig(db),
    getOptionalUserId(request),
  ])
  const images = templates.map((template) => galleryTemplate(template, userId !== null))
  // What one version of a portrait costs: the template dialog shows it beside its versions choice.
  return json({ styles, images, imageCost: settings.imageGenerationCreditCost, hdCost: settings.hdImageCost })
}

/**
 * What the page needs of a template: its card, and for a signed-in viewer what the Use template
 * dialog applies. A guest is sent to sign in before using one, so the gallery's prompts are not
 * handed to every visitor, nor carried by the page a phone loads first (with the originals' URLs and
 * the dates, which the page never shows, the home page's HTML grew past one round trip of a slow
 * connection: decision 0021).
 */
function galleryTemplate(template: TemplateJson, signedIn: boolean): GalleryTemplate {
  const { _id, imageUrl, thumbnailUrl, width, height, name, parameters } = template
  return {
    _id,
    imageUrl,
    thumbnailUrl,
    width,
    height,
    name,
    parameters: signedIn ? parameters : { style: parameters.style },
  }
}

/** The delete form on each image (admins): removes it, then back to the same page and filter. */
export async function galleryAction(request: Request) {
  await requirePermission(request, 'manageGallery')
  const form = await readForm(request)
  try {
    await deleteTemplate(getDb(), getStorage(), String(form.get('id') ?? ''))
  } catch (error) {
    if (error instanceof HttpError) return json({ message: error.message }, { status: error.status })
    throw error
  }
  const back = new URL(request.url)
  back.searchParams.delete('index')
  return redirect(safeRedirectPath(back.pathname + back.search))
}
