/**
 * The contract every generation provider implements. The worker's tasks only talk to these
 * interfaces; which implementation runs is chosen by IMAGE_PROVIDER / VIDEO_PROVIDER.
 */

export type ImageMimeType = 'image/png' | 'image/jpeg' | 'image/webp'

export interface ImageInput {
  bytes: Buffer
  mimeType: ImageMimeType
}

/** The structured options of the generator's Guide mode (spec section 2, /generate). */
export interface GuidedOptions {
  personification: 'yes' | 'no'
  clothingTop: string
  accessories: string
  clothingPants: string
  clothingShoes: string
  action: string
  background: string
}

export interface ImageRequest {
  /** The pet photo first, then up to five reference images (Customize mode). */
  images: ImageInput[]
  /** The final prompt sent to a model (already built from guided options when in Guide mode). */
  prompt: string
  /** Generator style: general | fashion_female | fashion_male | template. */
  style: string
  /** The guided options when the request came from Guide mode, for renderers that use them. */
  guided: GuidedOptions | null
}

export interface GeneratedMedia {
  bytes: Buffer
  mimeType: string
}

export interface ProviderContext {
  signal: AbortSignal
  /** Reports progress 0..100; providers call it when they know more. */
  onProgress: (percent: number) => void | Promise<void>
}

export interface ImageProvider {
  readonly name: string
  generate(request: ImageRequest, context: ProviderContext): Promise<GeneratedMedia>
}

export type VideoAspectRatio = '16:9' | '9:16'
export type VideoResolution = '720p' | '1280p'
export type VideoQuality = 'stable' | 'fast'

export interface VideoRequest {
  mode: 'image' | 'text'
  /** Present in image mode. */
  image: ImageInput | null
  prompt: string
  aspectRatio: VideoAspectRatio
  resolution: VideoResolution
  quality: VideoQuality
}

export interface VideoProvider {
  readonly name: string
  generate(request: VideoRequest, context: ProviderContext): Promise<GeneratedMedia>
}

/**
 * A provider failure. `retryable` is true for transient trouble (HTTP 429, 5xx, timeouts, network
 * errors): the job is retried with backoff. Refusals (`refused`: the content rules) and bad input
 * are final at once.
 * `message` is shown to the user, so it must be readable and must not leak secrets.
 */
export class ProviderError extends Error {
  readonly retryable: boolean
  readonly status: number | undefined
  readonly refused: boolean

  constructor(message: string, options: { retryable: boolean; status?: number; cause?: unknown; refused?: boolean }) {
    super(message, { cause: options.cause })
    this.name = 'ProviderError'
    this.retryable = options.retryable
    this.status = options.status
    this.refused = options.refused ?? false
  }
}
