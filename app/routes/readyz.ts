import { checkReadiness } from '#platform/readiness.server.ts'

/** Fly's deploy check: 200 when the database and media storage answer, 503 (naming what failed) when not. */
export async function loader() {
  const result = await checkReadiness()
  return Response.json(result, { status: result.ready ? 200 : 503, headers: { 'Cache-Control': 'no-store' } })
}
