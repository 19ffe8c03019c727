import { HttpError } from '#domain/http-error.server.ts'
import { undrawableCharacters } from './title-fonts.server.ts'
import { TITLE_FONTS, type VersionTitle } from './title-options.ts'

/** 422 naming the characters the title's font cannot draw (an emoji, another script). */
export function requireDrawableTitle(title: VersionTitle, field = 'title') {
  const missing = undrawableCharacters(title.text, title.font)
  if (missing.length === 0) return
  const named = missing.map((char) => `"${char}"`).join(', ')
  throw new HttpError(
    422,
    `${TITLE_FONTS[title.font]} cannot draw ${missing.length === 1 ? 'this character' : 'these characters'}: ${named}. Remove ${missing.length === 1 ? 'it' : 'them'} or choose another font.`,
    { field, extra: { characters: missing } },
  )
}
