import { getSystemConfig } from '#domain/credits/system-config.server.ts'
import { json, redirect } from '@remix-run/node'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'
import { readForm } from '#app/utils/form-body.server.ts'
import { safeRedirectPath } from '#app/utils/redirect-to.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { getStorage } from '#platform/storage.server.ts'
import { deleteTemplate, listTemplates } from '#domain/gallery/templates.server.ts'
import { listStyles } from '#domain/gallery/styles.server.ts'

/**
 * The loader and action behind / and /inspiration (one screen, two URLs). The loader answers every
 * image: the browser filters by ?style= itself, so switching categories needs no round trip.
 */
export async function loadGallery() {
  const db = getDb()
  const [styles, images, settings] = await Promise.all([listStyles(db), listTemplates(db), getSystemConfig(db)])
  // What one version of a portrait costs: the template dialog shows it beside its versions choice.
  return json({ styles, images, imageCost: settings.imageGenerationCreditCost, hdCost: settings.hdImageCost })
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
