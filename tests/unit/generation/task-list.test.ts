import { creditHistoryError } from '#domain/credits/credit-history-errors.ts'
import { downloadName, favouriteDownloadName } from '#app/generation/download-names.ts'
import { endedTasks, mergeTasks, readSavedTasks, saveTasks, taskFromSubmission } from '#app/generation/task-list.ts'
import { taskStatusText } from '#app/generation/task-status.ts'
import type { ClientTask } from '#domain/generation/task-view.ts'

const now = new Date(2026, 10, 23, 15, 0)
const at = (hours: number, day = 23) => new Date(2026, 10, day, hours).toISOString()
const task = (id: string, submittedAt: string, extra: Partial<ClientTask> = {}): ClientTask => ({
  id,
  type: 'image',
  source: 'generate',
  status: 'queued',
  progress: 0,
  description: 'Generate pet portrait',
  submittedAt,
  createdAt: submittedAt,
  ...extra,
})

test('status texts of spec section 4', () => {
  expect(taskStatusText({ status: 'queued', type: 'image', queuePosition: 2, totalInQueue: 5 })).toBe('In Queue 2/5')
  expect(taskStatusText({ status: 'processing', type: 'image' })).toBe('Generating Image...')
  expect(taskStatusText({ status: 'processing', type: 'video' })).toBe('Generating Video...')
  expect(taskStatusText({ status: 'completed', type: 'image' })).toBe('Completed')
  expect(taskStatusText({ status: 'failed', type: 'video' })).toBe('Failed')
})

test('a new video task starts queued as "Generate pet video"; a template task keeps its source', () => {
  expect(taskFromSubmission({ id: 'v1', type: 'video' }, now)).toMatchObject({
    type: 'video',
    status: 'queued',
    description: 'Generate pet video',
  })
  expect(taskFromSubmission({ id: 't1', type: 'image', source: 'template' }, now).source).toBe('template')
  expect(taskFromSubmission({ id: 'i1', type: 'image' }, now)).toMatchObject({
    source: 'generate',
    description: 'Generate pet portrait',
  })
})

test('saved and fetched tasks merge by id, only today’s, newest first', () => {
  const saved = [task('a', at(9)), task('old', at(9, 22)), task('b', at(11))]
  const fresh = [task('a', at(9), { status: 'completed', progress: 100 }), task('c', at(14))]
  const merged = mergeTasks(saved, fresh, now)
  expect(merged.map((entry) => entry.id)).toEqual(['c', 'b', 'a'])
  expect(merged[2]).toMatchObject({ status: 'completed', progress: 100 })
})

test("an update keeps the description the page gave the task (the template's name)", () => {
  const shown = [task('t', at(9), { source: 'template', description: 'Template: Distinguished Gentleman' })]
  const update = [task('t', at(9), { source: 'template', description: 'Generate from template', status: 'processing' })]
  expect(mergeTasks(shown, update, now)[0]).toMatchObject({
    status: 'processing',
    description: 'Template: Distinguished Gentleman',
  })
  expect(mergeTasks([], update, now)[0].description).toBe('Generate from template')
})

test('saved tasks are the signed-in user’s own; unreadable ones count as none', () => {
  const store = new Map<string, string>()
  const storage = {
    getItem: (key: string) => store.get(key) ?? null,
    setItem: (key: string, value: string) => void store.set(key, value),
  }
  const mine = task('a', at(9))
  saveTasks(storage, 'me', [mine])
  expect(JSON.parse(store.get('tasks')!)).toEqual([{ ...mine, ownerId: 'me' }])
  expect(readSavedTasks(storage, 'me')).toEqual([{ ...mine, ownerId: 'me' }])
  expect(readSavedTasks(storage, 'someone else')).toEqual([])
  expect(readSavedTasks({ getItem: () => 'not json' }, 'me')).toEqual([])
  expect(readSavedTasks({ getItem: () => '[{"id":1}]' }, 'me')).toEqual([])
})

test('download names keep the spec prefixes, then the pet or template, the date and the version', () => {
  const id = '0123456789abcdef'
  const createdAt = '2026-11-26T23:10:00.000Z'
  expect(downloadName({ id, type: 'image', source: 'generate', createdAt })).toBe('pet-portrait-01234567-2026-11-26')
  expect(downloadName({ id, type: 'image', source: 'template', createdAt, subject: 'Royal Côté!' })).toBe(
    'pet-art-royal-cote-2026-11-26',
  )
  expect(downloadName({ id, type: 'video', source: 'generate', createdAt })).toBe('pet-video-01234567-2026-11-26')
  expect(
    favouriteDownloadName({ id, type: 'image', source: 'generate', createdAt, subject: 'Biscuit', favouriteIndex: 2 }),
  ).toBe('pet-portrait-biscuit-2026-11-26-3')
})

test('credit history failures read as the spec says', () => {
  expect(creditHistoryError('network')).toEqual({ message: 'Network connection error', logout: false })
  expect(creditHistoryError({ status: 401, message: 'Authentication expired, please log in again' })).toEqual({
    message: 'Session expired, please log in again',
    logout: true,
  })
  expect(creditHistoryError({ status: 401 }).message).toBe('Authentication failed')
  expect(creditHistoryError({ status: 404 }).message).toBe('Service unavailable')
  expect(creditHistoryError({ status: 500, message: 'Database down' }).message).toBe('Database down')
  expect(creditHistoryError({ status: 502 }).message).toBe('Request failed with status 502')
})

test('ended tasks: those unfinished before and finished now, not ones already finished or still running', () => {
  const before = [
    task('a', at(10), { status: 'processing' }),
    task('b', at(10), { status: 'queued' }),
    task('c', at(10), { status: 'completed' }),
  ]
  const fresh = [
    task('a', at(10), { status: 'completed' }),
    task('b', at(10), { status: 'processing' }),
    task('c', at(10), { status: 'completed' }),
    task('d', at(10), { status: 'failed' }),
  ]
  expect(endedTasks(before, fresh).map((ended) => ended.id)).toEqual(['a'])
  expect(endedTasks(before, [task('b', at(10), { status: 'failed' })]).map((ended) => ended.id)).toEqual(['b'])
})
