export const ASPECT_RATIOS = ['16:9', '9:16'] as const
export const RESOLUTIONS = ['720p', '1280p'] as const

export type VideoAspectRatio = (typeof ASPECT_RATIOS)[number]
export type VideoResolution = (typeof RESOLUTIONS)[number]

export interface VideoSize {
  width: number
  height: number
}

/** Portrait video exists only at 720p (as with Veo), so 9:16 + 1280p is rendered at 720p. */
export function effectiveResolution(aspectRatio: VideoAspectRatio, resolution: VideoResolution): VideoResolution {
  return aspectRatio === '9:16' ? '720p' : resolution
}

/** Pixel size of a video. "1280p" is the UI's name for its Higher setting, which is 1080p. */
export function videoSize(aspectRatio: VideoAspectRatio, resolution: VideoResolution): VideoSize {
  if (aspectRatio === '9:16') return { width: 720, height: 1280 }
  return resolution === '1280p' ? { width: 1920, height: 1080 } : { width: 1280, height: 720 }
}
