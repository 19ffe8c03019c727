import type { DB, Tx } from '#platform/db.server.ts'
import { badRequest, HttpError } from '#domain/http-error.server.ts'
import type { NewStyle } from '#domain/gallery/gallery-forms.ts'
import type { StyleJson } from '#domain/gallery/template-json.ts'

type StyleKind = 'gallery' | 'generator'

/** The styles of one kind in their display order (the defaults first, then newer ones). */
export function listStyles(db: DB | Tx, kind: StyleKind = 'gallery'): Promise<StyleJson[]> {
  return db
    .selectFrom('styles')
    .select(['value', 'label'])
    .where('kind', '=', kind)
    .orderBy('position')
    .orderBy('created_at')
    .execute()
}

/** A gallery style, or a 400 naming the unknown value. */
export async function requireGalleryStyle(db: DB | Tx, value: string): Promise<StyleJson> {
  const style = await db
    .selectFrom('styles')
    .select(['value', 'label'])
    .where('value', '=', value)
    .where('kind', '=', 'gallery')
    .executeTakeFirst()
  if (!style) throw badRequest(`Unknown style "${value}"`)
  return style
}

/** Adds a gallery style after the existing ones; 409 when the value is taken (by a style of any kind). */
export async function createGalleryStyle(db: DB, style: NewStyle): Promise<StyleJson> {
  const created = await db
    .insertInto('styles')
    .values((eb) => ({
      value: style.value,
      label: style.label,
      kind: 'gallery',
      position: eb
        .selectFrom('styles')
        .select(eb.fn.coalesce(eb(eb.fn.max('position'), '+', 1), eb.lit(0)).as('next'))
        .where('kind', '=', 'gallery'),
    }))
    .onConflict((oc) => oc.column('value').doNothing())
    .returning(['value', 'label'])
    .executeTakeFirst()
  if (!created) throw new HttpError(409, 'Style already exists')
  return created
}
