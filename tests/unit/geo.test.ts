import { isPlaceable, lookupLocation } from '#platform/geo.server.ts'

test('loopback, private, shared and link-local addresses are never looked up', () => {
  for (const ip of ['127.0.0.1', '127.0.0.2', '10.1.2.3', '172.20.0.1', '192.168.1.10', '100.64.0.7', '169.254.1.1']) {
    expect(isPlaceable(ip), ip).toBe(false)
  }
  for (const ip of ['::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1'])
    expect(isPlaceable(ip), ip).toBe(false)
  for (const ip of ['unknown', '', '999.1.1.1']) expect(isPlaceable(ip), ip).toBe(false)
})

test('public addresses are, in either notation', () => {
  for (const ip of ['8.8.8.8', '81.2.69.142', '::ffff:81.2.69.142', '2001:4860:4860::8888']) {
    expect(isPlaceable(ip), ip).toBe(true)
  }
})

test('a public address is placed from the offline database; a private one is Unknown', async () => {
  expect(await lookupLocation('192.168.0.1')).toEqual({ country: null, city: null })
  expect((await lookupLocation('81.2.69.142')).country).toBe('GB')
})
