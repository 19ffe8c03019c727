/**
 * A name on the portrait (issue 41, item 3): at most TITLE_MAX_LENGTH characters, one of three
 * plaque styles and one of three bundled open-licence fonts. The schema is shared by the API, the
 * pages (in the browser too) and the task's params; drawing it is title-render.server.ts's.
 */
import { z } from 'zod'

export const TITLE_MAX_LENGTH = 24

export const TITLE_STYLES = {
  band: 'A band across the bottom',
  arch: 'An arched title',
  plaque: 'A small plaque',
} as const

export type TitleStyle = keyof typeof TITLE_STYLES

/** The bundled fonts (npm @fontsource packages, SIL Open Font License 1.1), by the name the API uses. */
export const TITLE_FONTS = {
  'playfair-display': 'Playfair Display',
  'great-vibes': 'Great Vibes',
  cinzel: 'Cinzel',
} as const

export type TitleFont = keyof typeof TITLE_FONTS

const styleKeys = Object.keys(TITLE_STYLES) as [TitleStyle, ...TitleStyle[]]
const fontKeys = Object.keys(TITLE_FONTS) as [TitleFont, ...TitleFont[]]

export const titleStyleSchema = z.enum(styleKeys, {
  errorMap: () => ({ message: `titleStyle must be one of ${styleKeys.join(', ')}` }),
})
export const titleFontSchema = z.enum(fontKeys, {
  errorMap: () => ({ message: `titleFont must be one of ${fontKeys.join(', ')}` }),
})

/** The title's text: one line, trimmed; '' is no title. */
export const titleTextSchema = z
  .string({ invalid_type_error: 'title must be text' })
  .transform((text) => text.replace(/\s+/g, ' ').trim())
  .pipe(z.string().max(TITLE_MAX_LENGTH, `The title can be at most ${TITLE_MAX_LENGTH} characters`))

/** A title as it is set on a version and kept on its row. */
export const versionTitleSchema = z.object({
  text: z.string().min(1).max(TITLE_MAX_LENGTH),
  style: titleStyleSchema,
  font: titleFontSchema,
})

export type VersionTitle = z.infer<typeof versionTitleSchema>

/** The generator's fields (`title`, `titleStyle`, `titleFont`); style and font matter only with a title. */
export const titleFieldsSchema = z.object({
  title: titleTextSchema.default(''),
  titleStyle: titleStyleSchema.default('band'),
  titleFont: titleFontSchema.default('playfair-display'),
})

/** The title the fields ask for, or null for none. */
export const titleOf = (fields: z.output<typeof titleFieldsSchema>): VersionTitle | null =>
  fields.title ? { text: fields.title, style: fields.titleStyle, font: fields.titleFont } : null
