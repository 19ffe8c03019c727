/**
 * Several versions made by several calls (Gemini's parallel requests, the local renderer's seeds):
 * every call runs to its end, the versions that came are kept in the order asked for, and the first
 * failure explains the others, a refusal before any other (so a 503 beside it never fails the
 * version over to another provider, docs/decisions/0033). Nothing came: that failure is thrown, as a
 * one-version call's would be.
 */
import { ProviderError, versionsOf, type GeneratedImages, type GeneratedMedia, type ImageRequest } from '../types.ts'

export async function makeEachVersion(
  request: Pick<ImageRequest, 'versions'>,
  make: (version: number) => Promise<GeneratedMedia>,
): Promise<GeneratedImages> {
  const settled = await Promise.allSettled(versionsOf(request).map(make))
  const images = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []))
  const failures = settled.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome] : []))
  const failure = failures.find(({ reason }) => reason instanceof ProviderError && reason.refused) ?? failures.at(0)
  if (images.length === 0) throw failure?.reason
  return failure ? { images, shortfall: failure.reason } : { images }
}
