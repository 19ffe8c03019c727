import { json } from '@remix-run/node'
import { systemSettingsSchema } from '#app/features/credits/system-config-schema.ts'
import { getSystemConfig, saveSystemConfig } from '#app/features/credits/system-config.server.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { requirePermission } from '#app/utils/permissions.server.ts'
import { getDb } from '#app/utils/db.server.ts'
import { HttpError } from '#app/utils/http.server.ts'

/** The costs are public: the generators and the registration page show them to everyone. */
export const loader = apiHandler(async () => json(await getSystemConfig(getDb())))

export const action = apiHandler(async ({ request }) => {
  if (request.method !== 'PUT') throw new HttpError(405, 'Method not allowed')
  await requirePermission(request, 'editSystemConfig')
  const settings = await saveSystemConfig(getDb(), systemSettingsSchema.parse(await readJson(request)))
  return json({ message: 'System settings updated successfully', settings })
})
