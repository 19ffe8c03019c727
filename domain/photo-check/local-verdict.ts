/**
 * What the local measures mean for a pet photo: refuse only what cannot work (too small, blank,
 * far too blurred), warn about what may work less well. The thresholds and how they were chosen
 * (so that phone photos, soft fur and dark coats pass) are in docs/decisions/0031.
 */
import type { PhotoMeasures } from './photo-measures.server.ts'

const MIN_SHORT_SIDE = 512
/** Below this the providers (which work at about 1024) have little detail to keep. */
const COMFORTABLE_SHORT_SIDE = 768
/** Greyscale standard deviation: a flat colour, a lens cap, a black screen. */
const BLANK_BELOW = 4
/** Laplacian variance of the sharpest cell at 512 px: below, nothing in the photo is in focus. */
const BLURRED_BELOW = 5
const SOFT_BELOW = 25
/** Greyscale standard deviation of a very dark or washed-out photo that still shows something. */
const FLAT_BELOW = 12

export interface Verdict {
  refusal?: string
  warnings: string[]
}

export function judgeMeasures(measures: Pick<PhotoMeasures, 'width' | 'height' | 'sharpness' | 'contrast'>): Verdict {
  const shortSide = Math.min(measures.width, measures.height)
  if (shortSide < MIN_SHORT_SIDE) {
    return {
      refusal: `This photo is too small (${measures.width}×${measures.height} px): please use one at least ${MIN_SHORT_SIDE} px on its shorter side`,
      warnings: [],
    }
  }
  if (measures.contrast < BLANK_BELOW) {
    return { refusal: 'This photo looks blank: please choose a photo that shows your pet', warnings: [] }
  }
  if (measures.sharpness < BLURRED_BELOW) {
    return {
      refusal: 'This photo is too blurred to work from: please use a sharper photo of your pet',
      warnings: [],
    }
  }
  const warnings: string[] = []
  if (shortSide < COMFORTABLE_SHORT_SIDE) {
    warnings.push('This photo is rather small: a larger one keeps more of your pet’s detail')
  }
  if (measures.sharpness < SOFT_BELOW) {
    warnings.push('This photo is a little blurred: a sharper one gives a closer likeness')
  }
  if (measures.contrast < FLAT_BELOW) {
    warnings.push('This photo is very dark or faded: a brighter one shows your pet’s colours better')
  }
  return { warnings }
}
