import type { z } from 'zod'
import { HttpError } from '#domain/http-error.server.ts'

/** Parses a request's input, refusing the first problem with `status` and the field it names. */
export function parseInput<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, value: unknown, status = 400): T {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const issue = result.error.issues[0]!
  const field = issue.path.join('.')
  throw new HttpError(status, issue.message, field ? { field } : {})
}
