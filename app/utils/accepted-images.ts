/** The `accept` list of every image input: the formats the server sniffs and keeps (domain/media/images.server.ts). */
export const ACCEPTED_IMAGES = 'image/jpeg,image/png,image/webp,image/gif'
