/** A same-site path to go to after signing in; anything else (absolute or protocol-relative URLs) becomes '/'. */
export function safeRedirectPath(to: FormDataEntryValue | string | null | undefined): string {
  if (typeof to !== 'string' || !to.startsWith('/') || to.startsWith('//') || to.startsWith('/\\')) return '/'
  return to
}
