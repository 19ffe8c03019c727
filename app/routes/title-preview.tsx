import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { titlePreviewUrl } from '#app/generation/title-fields.tsx'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { titleFontSchema, titleStyleSchema, titleTextSchema, TITLE_FONTS } from '#domain/titles/title-options.ts'
import { undrawableCharacters } from '#domain/titles/title-fonts.server.ts'

export const meta: MetaFunction = () => [{ title: 'Preview of the name | Pawtrait' }]

/**
 * /title-preview: the generator's "Preview the name" without JavaScript opens this page in a tab of
 * its own (a GET of the form, so the form keeps its photos): the name as the server will set it, or
 * why it cannot be set.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request)
  const search = new URL(request.url).searchParams
  const text = titleTextSchema.safeParse(search.get('title') ?? '')
  const style = titleStyleSchema.catch('band').parse(search.get('titleStyle') ?? undefined)
  const font = titleFontSchema.catch('playfair-display').parse(search.get('titleFont') ?? undefined)
  if (!text.success) return json({ preview: null, problem: text.error.issues[0]?.message ?? 'Invalid name' })
  if (!text.data) return json({ preview: null, problem: 'Type a name first.' })
  const missing = undrawableCharacters(text.data, font)
  if (missing.length > 0) {
    return json({
      preview: null,
      problem: `${TITLE_FONTS[font]} cannot draw: ${missing.map((c) => `"${c}"`).join(', ')}`,
    })
  }
  const title = { text: text.data, style, font }
  return json({ preview: { url: titlePreviewUrl(title), text: title.text }, problem: null })
}

export default function TitlePreview() {
  const { preview, problem } = useLoaderData<typeof loader>()
  return (
    <main className="container">
      <h1>Preview of the name</h1>
      {preview ? (
        <img
          className="title-preview"
          src={preview.url}
          alt={`Preview of the name “${preview.text}” as it will be set`}
          width={512}
          height={512}
        />
      ) : (
        <p className="form-error">{problem}</p>
      )}
      <p className="muted">
        The dashed line is the part every print size keeps. Close this tab to go back to your portrait.
      </p>
    </main>
  )
}
