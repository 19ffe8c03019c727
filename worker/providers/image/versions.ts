/**
 * Several versions made by several calls (Gemini's parallel requests, the local renderer's seeds):
 * every call runs to its end, the versions that came are kept in the order asked for, and the first
 * failure explains the others. Nothing came: that failure is thrown, as a one-version call's would be.
 */
import { versionsOf, type GeneratedImages, type GeneratedMedia, type ImageRequest } from '../types.ts'

export async function makeEachVersion(
  request: Pick<ImageRequest, 'versions'>,
  make: (version: number) => Promise<GeneratedMedia>,
): Promise<GeneratedImages> {
  const settled = await Promise.allSettled(versionsOf(request).map(make))
  const images = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []))
  const failure = settled.find((outcome) => outcome.status === 'rejected')
  if (images.length === 0) throw failure?.reason
  return failure ? { images, shortfall: failure.reason } : { images }
}
