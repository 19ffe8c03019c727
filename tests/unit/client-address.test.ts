import { CLIENT_ADDRESS_HEADER, getClientAddress, resolveClientAddress } from '#platform/client-address.server.ts'

test("the socket's address, one spelling for IPv4 on a dual-stack socket; X-Forwarded-For is ignored", () => {
  const headers = { 'x-forwarded-for': '203.0.113.9', 'fly-client-ip': '198.51.100.1' }
  expect(resolveClientAddress('::ffff:127.0.0.2', headers, 'none')).toBe('127.0.0.2')
  expect(resolveClientAddress('2001:db8::1', headers, 'none')).toBe('2001:db8::1')
  expect(resolveClientAddress(undefined, {}, 'none')).toBe('unknown')
})

test('Fly-Client-IP names the client only when the app is told it runs behind Fly', () => {
  expect(resolveClientAddress('10.0.0.1', { 'fly-client-ip': ' 198.51.100.1 ' }, 'fly')).toBe('198.51.100.1')
  expect(resolveClientAddress('10.0.0.1', {}, 'fly')).toBe('10.0.0.1')
  expect(resolveClientAddress('10.0.0.1', { 'fly-client-ip': '198.51.100.1' }, 'none')).toBe('10.0.0.1')
})

test('the app reads the address the server resolved, or unknown', () => {
  const resolved = new Request('http://app.test/', { headers: { [CLIENT_ADDRESS_HEADER]: '127.0.0.3' } })
  expect(getClientAddress(resolved)).toBe('127.0.0.3')
  expect(getClientAddress(new Request('http://app.test/', { headers: { 'x-forwarded-for': '1.2.3.4' } }))).toBe(
    'unknown',
  )
})
