/** The site's public origin: PUBLIC_URL when set, else the origin the request came to. */
export function siteOrigin(request: Request, publicUrl: string | undefined) {
  return (publicUrl ?? new URL(request.url).origin).replace(/\/$/, '')
}
