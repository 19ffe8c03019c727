/** Where the web serves a stored media object (see routes/media.$.ts). Keys are content-hashed. */
export function mediaUrl(key: string): string
export function mediaUrl(key: string | null | undefined): string | null
export function mediaUrl(key: string | null | undefined) {
  return key ? `/media/${key}` : null
}

/**
 * The widths previews of a picture are made at (domain/media/previews.server.ts): 480 for a grid
 * cell at 1x, 720 for a phone's full-width cell (412 px at 1.75x) or a cell of up to 360 px at 2x.
 */
export const PREVIEW_WIDTHS = [480, 720] as const
export type PreviewWidth = (typeof PREVIEW_WIDTHS)[number]

export const isPreviewWidth = (width: number): width is PreviewWidth => PREVIEW_WIDTHS.some((known) => known === width)

/** A picture's preview at `width`, by its /media URL. */
export const previewUrl = (url: string, width: PreviewWidth) => `${url}?w=${width}`

/** The `srcset` of a picture's previews, by its /media URL. */
export const previewSrcSet = (url: string) =>
  PREVIEW_WIDTHS.map((width) => `${previewUrl(url, width)} ${width}w`).join(', ')
