import { json } from '@remix-run/node'
import { apiHandler } from '#app/utils/api.server.ts'
import { TITLE_FONTS, TITLE_MAX_LENGTH, TITLE_STYLES } from '#domain/titles/title-options.ts'

/** GET /api/titles: the plaque styles and bundled fonts a portrait's title may use (issue 41). */
export const loader = apiHandler(async () =>
  json({
    maxLength: TITLE_MAX_LENGTH,
    styles: Object.entries(TITLE_STYLES).map(([id, label]) => ({ id, label })),
    fonts: Object.entries(TITLE_FONTS).map(([id, name]) => ({ id, name })),
  }),
)
