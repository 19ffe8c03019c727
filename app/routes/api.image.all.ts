import { json } from '@remix-run/node'
import { listTemplates } from '#domain/gallery/templates.server.ts'
import { apiHandler } from '#app/utils/api.server.ts'
import { getDb } from '#platform/db.server.ts'

/** GET /api/image/all: every template (the spec: inspiration images), newest first; public. */
export const loader = apiHandler(async () => json(await listTemplates(getDb())))
