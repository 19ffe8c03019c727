import { clientLimitKey, siteLimitKey } from '#domain/limits/client-key.ts'
import { mailboxKey } from '#domain/limits/mailbox-key.ts'

test('an IPv4 address is its own client; an IPv4-mapped IPv6 address is that IPv4 address', () => {
  expect(clientLimitKey('192.0.2.1')).toBe('192.0.2.1')
  expect(clientLimitKey('::ffff:192.0.2.1')).toBe('192.0.2.1')
  expect(clientLimitKey('::FFFF:c000:0201')).toBe('192.0.2.1')
  expect(siteLimitKey('192.0.2.1')).toBeNull()
  expect(siteLimitKey('::ffff:192.0.2.1')).toBeNull()
})

test('every address of an IPv6 /64 is one client, whatever its spelling; its /48 is its site', () => {
  const spellings = [
    '2001:db8:1:2::1',
    '2001:0DB8:0001:0002:ffff:ffff:ffff:ffff',
    '2001:db8:1:2:0:0:0:9',
    ' 2001:db8:1:2::a%eth0',
  ]
  expect(new Set(spellings.map(clientLimitKey))).toEqual(new Set(['2001:db8:1:2::/64']))
  expect(clientLimitKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64')
  expect(new Set([...spellings, '2001:db8:1:ffff::1'].map(siteLimitKey))).toEqual(new Set(['2001:db8:1::/48']))
  expect(siteLimitKey('2001:db8:2::1')).toBe('2001:db8:2::/48')
  expect(clientLimitKey('::1')).toBe('0:0:0:0::/64')
})

test('anything that is not an address is kept as it came', () => {
  expect(clientLimitKey('unknown')).toBe('unknown')
  expect(siteLimitKey('unknown')).toBeNull()
})

test('one mailbox, one key: case, +tags, and Gmail dots and googlemail.com', () => {
  const victim = ['victim@example.com', 'Victim+1@Example.com', 'victim+6@example.com', ' VICTIM+a+b@example.com ']
  expect(new Set(victim.map(mailboxKey))).toEqual(new Set(['victim@example.com']))
  // Dots count outside Gmail: another provider may deliver them to another person.
  expect(mailboxKey('vic.tim@example.com')).toBe('vic.tim@example.com')
  const gmail = ['victim@gmail.com', 'v.i.c.t.i.m@gmail.com', 'Vic.Tim+spam@googlemail.com', 'victim@GoogleMail.com']
  expect(new Set(gmail.map(mailboxKey))).toEqual(new Set(['victim@gmail.com']))
})

test('a domain written with its root dot is the same mailbox', () => {
  // `example.com.` is `example.com` to DNS, and mail servers deliver to it; the email form accepts it.
  expect(mailboxKey('victim+1@example.com.')).toBe('victim@example.com')
  expect(mailboxKey('v.ictim@gmail.com.')).toBe('victim@gmail.com')
})
