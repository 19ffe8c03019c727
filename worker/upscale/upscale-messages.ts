/** What the upscaler (upscaler.ts) gives each of its threads (upscale-thread.ts) and what they answer. */

export interface TileTask {
  /** The tile's read region (the tile and its context, tiles.ts), packed RGB, 3 bytes a pixel. */
  rgb: Uint8Array
  width: number
  height: number
  /** The tile's own part of that region, in input pixels: the only part enlarged back. */
  keep: { x: number; y: number; width: number; height: number }
  /** 2 or 4: the ESRGAN-slim model of that scale. */
  scale: 2 | 4
  /** Where the x2/x4 model folders are; the package's own by default. */
  modelDir?: string
}

export type TileResult =
  /** The kept part enlarged, packed RGB. */
  | { rgb: Uint8Array }
  /** The backend or the model could not be loaded (the upscaler then falls back to Lanczos). */
  | { unavailable: string }
