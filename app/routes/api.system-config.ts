import { json } from '@remix-run/node'
import { systemSettingsSchema } from '#domain/credits/system-config-schema.ts'
import { getSystemConfig, saveSystemConfig } from '#domain/credits/system-config.server.ts'
import { apiHandler, readJson } from '#app/utils/api.server.ts'
import { apiMethods, requireMethod } from '#app/utils/api-methods.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'

/** The costs are public: the generators and the registration page show them to everyone. */
export const loader = apiHandler(async () => json(await getSystemConfig(getDb())))

export const handle = apiMethods('PUT')

export const action = apiHandler(async ({ request }) => {
  requireMethod(request, handle)
  await requirePermission(request, 'editSystemConfig')
  const settings = await saveSystemConfig(getDb(), systemSettingsSchema.parse(await readJson(request)))
  return json({ message: 'System settings updated successfully', settings })
})
