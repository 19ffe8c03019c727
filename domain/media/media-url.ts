/** Where the web serves a stored media object (see routes/media.$.ts). Keys are content-hashed. */
export function mediaUrl(key: string): string
export function mediaUrl(key: string | null | undefined): string | null
export function mediaUrl(key: string | null | undefined) {
  return key ? `/media/${key}` : null
}
