import { isCrossSiteRequest } from '../../server/csrf.ts'

test('safe methods are never refused', () => {
  expect(isCrossSiteRequest('GET', { origin: 'https://evil.example', host: 'pawtrait.app' })).toBe(false)
})

test('a state-changing request from another origin is refused, from our own it passes', () => {
  expect(isCrossSiteRequest('POST', { origin: 'https://evil.example', host: 'pawtrait.app' })).toBe(true)
  expect(isCrossSiteRequest('POST', { origin: 'https://pawtrait.app', host: 'pawtrait.app' })).toBe(false)
  expect(isCrossSiteRequest('DELETE', { 'sec-fetch-site': 'cross-site', host: 'pawtrait.app' })).toBe(true)
  expect(
    isCrossSiteRequest('PUT', {
      'sec-fetch-site': 'same-origin',
      origin: 'https://pawtrait.app',
      host: 'pawtrait.app',
    }),
  ).toBe(false)
})

test('behind a proxy the public URL counts as our origin', () => {
  const headers = { origin: 'https://pawtrait.fly.dev', host: '10.0.0.5:3000' }
  expect(isCrossSiteRequest('POST', headers, 'https://pawtrait.fly.dev')).toBe(false)
  expect(isCrossSiteRequest('POST', headers)).toBe(true)
})

test('API clients without Origin (token in a header) are not affected', () => {
  expect(isCrossSiteRequest('POST', { host: 'pawtrait.app' })).toBe(false)
})
