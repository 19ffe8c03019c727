import { parseEnv } from '#platform/env.server.ts'

const base = { DATA_DIR: 'tests/.tmp/data' }

test('ANALYTICS_RAW_RETENTION_DAYS is unset by default (keep every raw event) and a whole number of days', () => {
  expect(parseEnv({ ...base }).ANALYTICS_RAW_RETENTION_DAYS).toBeUndefined()
  expect(parseEnv({ ...base, ANALYTICS_RAW_RETENTION_DAYS: '' }).ANALYTICS_RAW_RETENTION_DAYS).toBeUndefined()
  expect(parseEnv({ ...base, ANALYTICS_RAW_RETENTION_DAYS: '90' }).ANALYTICS_RAW_RETENTION_DAYS).toBe(90)
  for (const bad of ['0', '-3', '1.5', 'forever']) {
    expect(() => parseEnv({ ...base, ANALYTICS_RAW_RETENTION_DAYS: bad })).toThrow(/ANALYTICS_RAW_RETENTION_DAYS/)
  }
})
