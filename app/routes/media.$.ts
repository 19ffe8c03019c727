import type { LoaderFunctionArgs } from '@remix-run/node'
import { mediaResponse } from '#app/utils/media-response.server.ts'
import { getStorage } from '#platform/storage.server.ts'

/** GET /media/<key>: stored media. Keys are unguessable content hashes under random prefixes. */
export function loader({ request, params }: LoaderFunctionArgs) {
  return mediaResponse(request, getStorage(), params['*'] ?? '')
}
