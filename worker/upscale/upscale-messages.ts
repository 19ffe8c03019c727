/** What the upscaler (upscaler.ts) and its worker thread (upscale-thread.ts) say to each other. */

export interface UpscaleRequest {
  /** Packed RGB, 3 bytes a pixel, row by row. */
  rgb: Uint8Array
  width: number
  height: number
  /** 2 or 4: the ESRGAN-slim model of that scale runs once. */
  scale: 2 | 4
  /** Where the x2/x4 model folders are; the package's own by default. */
  modelDir?: string
}

export type UpscaleReply =
  | { ok: true; rgb: Uint8Array }
  /** `load`: the model could not be loaded (the caller falls back to Lanczos); `run`: it failed midway. */
  | { ok: false; stage: 'load' | 'run'; message: string }

/** Sent while tiles are done, before the reply. */
export interface UpscaleProgress {
  progress: number
}
