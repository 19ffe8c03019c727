import { json } from '@remix-run/node'
import { apiHandler } from '#app/utils/api.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { printOptions } from '#domain/prints/print-options.server.ts'
import { parseInput } from '#domain/prints/print-input.ts'
import { versionIndexSchema } from '#domain/prints/printable-version.server.ts'
import { getDb } from '#platform/db.server.ts'
import { z } from 'zod'

const querySchema = z.object({ taskId: z.string({ required_error: 'taskId is required' }), index: versionIndexSchema })

/** GET /api/prints/options?taskId=…&index=n → { products: [{ sku, kind, label, …, available, reason }] } */
export const loader = apiHandler(async ({ request }) => {
  const user = await requireUser(request)
  const query = Object.fromEntries(new URL(request.url).searchParams)
  const { taskId, index } = parseInput(querySchema, { index: '0', ...query })
  return json(await printOptions(getDb(), user.id, taskId, index), {
    headers: { 'Cache-Control': 'private, no-store' },
  })
})
