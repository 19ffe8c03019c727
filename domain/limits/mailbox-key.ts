/**
 * Which inbox a per-email limit counts (issue 30): mail providers deliver `victim+1@…` and
 * `victim+2@…` to `victim@…`, and Gmail also ignores dots and treats googlemail.com as gmail.com,
 * so limits keyed on the address as typed let one inbox be sent a full quota per spelling. The
 * key is the address lowercased, its local part cut at the first `+`, and for Gmail without dots.
 * Only limits use it: codes still go to the address as typed, and accounts stay as registered.
 */

const gmailDomains = new Set(['gmail.com', 'googlemail.com'])

export function mailboxKey(email: string): string {
  const address = email.trim().toLowerCase()
  const at = address.lastIndexOf('@')
  if (at < 0) return address
  // `example.com.` (the DNS root's dot) is the same domain, and mail is delivered to it.
  const domain = address.slice(at + 1).replace(/\.+$/, '')
  const local = address.slice(0, at).split('+')[0]
  return gmailDomains.has(domain) ? `${local.replaceAll('.', '')}@gmail.com` : `${local}@${domain}`
}
