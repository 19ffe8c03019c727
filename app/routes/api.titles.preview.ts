import { z } from 'zod'
import { apiHandler } from '#app/utils/api.server.ts'
import { badRequest } from '#domain/http-error.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { requireDrawableTitle } from '#domain/titles/title-check.server.ts'
import { titleFontSchema, titleStyleSchema, titleTextSchema } from '#domain/titles/title-options.ts'
import { titlePreview } from '#domain/titles/title-render.server.ts'

const previewQuerySchema = z.object({
  title: titleTextSchema.pipe(z.string().min(1, 'title is required')),
  style: titleStyleSchema.default('band'),
  font: titleFontSchema.default('playfair-display'),
})

/**
 * GET /api/titles/preview?title=…&style=…&font=…: a PNG of the title as it will be set, drawn on the
 * server from the bundled fonts, so a typo is caught before paying. For signed-in users (it draws).
 */
export const loader = apiHandler(async ({ request }) => {
  await requireUser(request)
  const search = new URL(request.url).searchParams
  const query = previewQuerySchema.safeParse({
    title: search.get('title') ?? undefined,
    style: search.get('style') ?? undefined,
    font: search.get('font') ?? undefined,
  })
  if (!query.success) throw badRequest(query.error.issues[0]?.message ?? 'Invalid title')
  const title = { text: query.data.title, style: query.data.style, font: query.data.font }
  requireDrawableTitle(title)
  const png = await titlePreview(title)
  return new Response(new Uint8Array(png), {
    headers: { 'Content-Type': 'image/png', 'Cache-Control': 'private, max-age=3600' },
  })
})
