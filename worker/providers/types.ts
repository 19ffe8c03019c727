/**
 * The contract every generation provider implements. The worker's tasks only talk to these
 * interfaces; which implementation runs is chosen by IMAGE_PROVIDER / VIDEO_PROVIDER.
 */

export type ImageMimeType = 'image/png' | 'image/jpeg' | 'image/webp'

export interface ImageInput {
  bytes: Buffer
  mimeType: ImageMimeType
}

// What a user chose is the generation domain's; providers take it as it is.
import type { GuidedOptions } from '#domain/generation/prompt.ts'
import type { VideoAspectRatio, VideoResolution } from '#domain/generation/video-dimensions.ts'
import type { VideoQuality } from '#domain/generation/video-generation-form.ts'
import type { ImageQuality } from '#domain/generation/image-prices.ts'

export type { GuidedOptions } from '#domain/generation/prompt.ts'
export type { VideoAspectRatio, VideoResolution } from '#domain/generation/video-dimensions.ts'
export type { VideoQuality } from '#domain/generation/video-generation-form.ts'

export interface ImageRequest {
  /** The pets' photos first (each pet's in turn), then up to five reference images (Customize mode). */
  images: ImageInput[]
  /** How many of the leading images belong to each pet, in order (issue 41); absent: one pet, one photo. */
  petPhotoCounts?: number[]
  /** The final prompt sent to a model (already built from guided options when in Guide mode). */
  prompt: string
  /** Generator style: general | fashion_female | fashion_male | template. */
  style: string
  /** The guided options when the request came from Guide mode, for renderers that use them. */
  guided: GuidedOptions | null
  /**
   * Which versions of the task to make (default [0]): as many images, each index a seed of its own
   * (the local renderer draws each index differently). Missing versions of a retry ask only for theirs.
   */
  versions?: number[]
  /** A re-roll's or a likeness fix's fresh seed, for renderers that take one (the local one). */
  seed?: number
  /** Standard (default) or HD: the provider's largest documented output (decision 0035). */
  quality?: ImageQuality
}

export interface GeneratedMedia {
  bytes: Buffer
  mimeType: string
}

export interface MadeBy {
  provider: string
  model: string | null
  /** That provider's HD edge (ImageProvider.hdLongEdge): an HD version is measured against it. */
  hdLongEdge?: number
}

export interface ProviderContext {
  signal: AbortSignal
  /** Reports progress 0..100; providers call it when they know more. */
  onProgress: (percent: number) => void | Promise<void>
}

/**
 * The versions a provider made, in the order asked for. Fewer than asked only with a `shortfall`,
 * the error that stopped the others; when none came the provider throws instead.
 */
export interface GeneratedImages {
  images: GeneratedMedia[]
  shortfall?: unknown
  /** Which provider and model made them, when a chain of providers (failover.ts) answered. */
  madeBy?: MadeBy
}

export interface ImageProvider {
  readonly name: string
  /** The model it asks for (null for the offline renderers). */
  readonly model?: string | null
  /** Each version is a paid request of its own (Gemini), counted one by one by the rate limit. */
  readonly requestPerVersion: boolean
  /**
   * The long edge, in pixels, of the square image this provider makes in HD: a version delivered
   * smaller is refunded HD's price difference (decision 0035). Absent: nothing is measured.
   */
  readonly hdLongEdge?: number
  generate(request: ImageRequest, context: ProviderContext): Promise<GeneratedImages>
}

/** How many versions a request asks for. */
export const versionsOf = (request: Pick<ImageRequest, 'versions'>) => request.versions ?? [0]

export interface VideoRequest {
  mode: 'image' | 'text'
  /** Present in image mode. */
  image: ImageInput | null
  prompt: string
  aspectRatio: VideoAspectRatio
  resolution: VideoResolution
  quality: VideoQuality
}

/** A video made in this process, from start to finish within one job (the local renderer). */
export interface VideoProvider {
  readonly name: string
  generate(request: VideoRequest, context: ProviderContext): Promise<GeneratedMedia>
}

/** Where a remote video operation stands after one look at it. */
export type OperationState = { done: false; progress: number } | { done: true; media: GeneratedMedia }

/**
 * A video made by a remote, long-running operation (Veo): started once, its name kept on the task,
 * then looked at again and again, by whichever job runs next, until it is done. So a retry, a
 * restart or a deploy resumes the same paid operation instead of starting another.
 */
export interface VideoOperationProvider {
  readonly name: string
  /** Starts the paid generation and answers the operation's name. */
  start(request: VideoRequest, context: ProviderContext): Promise<string>
  /** One look at the operation, `elapsedMs` after it started; the video is downloaded once done. */
  check(operation: string, elapsedMs: number, context: ProviderContext): Promise<OperationState>
  /** How long to wait between two looks. */
  readonly pollIntervalMs: number
}

export interface ProviderErrorOptions {
  retryable: boolean
  status?: number
  cause?: unknown
  /** The provider is busy (a 429, or our own rate limit): try again after this long, no attempt used. */
  retryAfterMs?: number
  /** The account's quota or credit is used up: final, and the operator must act. */
  quotaExhausted?: boolean
  /** The call ran out of time: the provider may still have done (and billed) the work. */
  timedOut?: boolean
  /** No answer at all (the connection refused, reset or never made): waited for with a backoff, no attempt used. */
  unreachable?: boolean
  /** A content-policy refusal: final, counted as `refused` in the metrics. */
  refused?: boolean
  /** The service refused this server's key or account (401, 403, a bad key): final, the operator must act. */
  credentialsRefused?: boolean
  /** No answer at all, not even response headers, within the stall time (PROVIDER_STALL_MS). */
  stalled?: boolean
}

/**
 * Why a provider call failed, as a machine-readable code (for failover, breakers, metrics and
 * refund lines): `refused` (safety or moderation; never failed over), `quota` (quota or billing
 * used up), `auth` (the key or account refused), `stall` (no answer at all in time), `busy` (a 429
 * or our own rate limit: wait), `retryable` (5xx, timeouts, network) or `final` (bad input, an
 * answer that cannot be used).
 */
export type ProviderFailure = 'refused' | 'quota' | 'auth' | 'stall' | 'busy' | 'retryable' | 'final'

/**
 * A provider failure. `retryable` is true for transient trouble (HTTP 429, 5xx, timeouts, network
 * errors): the job is retried with backoff. Refusals (`refused`: the content rules) and bad input
 * are final at once.
 * `message` is shown to the user, so it must be readable and must not leak secrets.
 */
export class ProviderError extends Error {
  readonly retryable: boolean
  readonly status: number | undefined
  readonly retryAfterMs: number | undefined
  readonly quotaExhausted: boolean
  readonly timedOut: boolean
  readonly unreachable: boolean
  /** A content-policy refusal (counted as `refused` in the metrics). */
  readonly refused: boolean
  readonly credentialsRefused: boolean
  readonly stalled: boolean

  constructor(message: string, options: ProviderErrorOptions) {
    super(message, { cause: options.cause })
    this.name = 'ProviderError'
    this.retryable = options.retryable
    this.status = options.status
    this.retryAfterMs = options.retryAfterMs
    this.quotaExhausted = options.quotaExhausted ?? false
    this.timedOut = options.timedOut ?? false
    this.unreachable = options.unreachable ?? false
    this.refused = options.refused ?? false
    this.credentialsRefused = options.credentialsRefused ?? false
    this.stalled = options.stalled ?? false
  }

  /** The failure's code (see ProviderFailure). */
  get reason(): ProviderFailure {
    if (this.refused) return 'refused'
    if (this.quotaExhausted) return 'quota'
    if (this.credentialsRefused) return 'auth'
    if (this.stalled) return 'stall'
    if (this.retryAfterMs !== undefined) return 'busy'
    return this.retryable ? 'retryable' : 'final'
  }
}

/** A provider's answer read as JSON (worker/providers/http.ts). */
export interface JsonAnswer {
  status: number
  ok: boolean
  /** Parsed JSON, or undefined when the body was empty or not JSON. */
  body: unknown
  /** The raw body, for messages when it was not JSON. */
  text: string
  headers: Headers
}

/** An object whose fields can be read one by one (a parsed JSON answer's). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}
