/**
 * The client's IP address: Fly's proxy sets `fly-client-ip`; elsewhere the first hop of
 * `x-forwarded-for`; 'unknown' when neither is present (direct connections, tests).
 */
export function getClientIp(request: Request): string {
  const flyIp = request.headers.get('fly-client-ip')?.trim()
  if (flyIp) return flyIp
  const forwarded = request.headers.get('x-forwarded-for')?.split(',')[0]?.trim()
  return forwarded || 'unknown'
}
