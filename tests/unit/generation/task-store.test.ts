import { createTaskStore, POLL_INTERVAL_MS, type TaskStreamSource } from '#app/generation/task-store.ts'
import type { ClientTask } from '#domain/generation/task-view.ts'

const NOW = new Date(2026, 10, 23, 15, 0)

const task = (id: string, extra: Partial<ClientTask> = {}): ClientTask => ({
  id,
  type: 'image',
  source: 'generate',
  status: 'processing',
  progress: 10,
  description: 'Generate pet portrait',
  submittedAt: NOW.toISOString(),
  createdAt: NOW.toISOString(),
  ...extra,
})

/** An EventSource the test drives: open it, drop it, send it events. */
class FakeStream implements TaskStreamSource {
  readyState = 0
  onopen: ((event: Event) => void) | null = null
  onerror: ((event: Event) => void) | null = null
  closed = false
  private listeners = new Map<string, (event: MessageEvent<string>) => void>()

  addEventListener(type: string, listener: (event: MessageEvent<string>) => void) {
    this.listeners.set(type, listener)
  }
  close() {
    this.closed = true
    this.readyState = 2
  }
  open() {
    this.readyState = 1
    this.onopen?.(new Event('open'))
  }
  /** A drop the browser reconnects from by itself (readyState CONNECTING). */
  drop() {
    this.readyState = 0
    this.onerror?.(new Event('error'))
  }
  send(state: ClientTask, id: string) {
    this.listeners.get('task')?.(new MessageEvent('task', { data: JSON.stringify(state), lastEventId: id }))
  }
}

function setUp({ today = [] as ClientTask[], polled = new Map<string, ClientTask>() } = {}) {
  const streams: FakeStream[] = []
  const reads: string[] = []
  const ended: ClientTask[][] = []
  const revalidations: number[] = []
  const saved = new Map<string, string>()
  const store = createTaskStore({
    ownerId: 'owner-1',
    fetch: (url) => {
      reads.push(url)
      if (url === '/api/async-image/tasks/today') return Promise.resolve(Response.json({ tasks: today }))
      const id = decodeURIComponent(url.split('/').pop() ?? '')
      const state = polled.get(id)
      return Promise.resolve(state ? Response.json(state) : new Response(null, { status: 404 }))
    },
    storage: { getItem: (key) => saved.get(key) ?? null, setItem: (key, value) => void saved.set(key, value) },
    openStream: () => {
      const stream = new FakeStream()
      streams.push(stream)
      return stream
    },
    onEnded: (tasks) => ended.push(tasks),
    revalidate: () => revalidations.push(Date.now()),
    random: () => 0.5,
  })
  const polls = () => reads.filter((url) => url.startsWith('/api/async-image/task/'))
  return { store, streams, ended, revalidations, saved, polls }
}

beforeEach(() => {
  vi.useFakeTimers({ now: NOW })
})
afterEach(() => {
  vi.useRealTimers()
})

test('a stream event updates the task: listed, heard by the page, saved, and its end announced with the credits read again 0.5 s later', async () => {
  const { store, streams, ended, revalidations, saved } = setUp({ today: [task('a')] })
  store.start()
  await vi.advanceTimersByTimeAsync(0) // today's tasks arrive
  streams[0]!.open()
  expect(store.getSnapshot().live).toBe(true)

  const changes = vi.fn()
  store.subscribe(changes)
  streams[0]!.send(task('a', { progress: 60 }), '7')
  expect(changes).toHaveBeenCalled()
  expect(store.getSnapshot().tasks[0]).toMatchObject({ id: 'a', progress: 60 })
  expect(store.getSnapshot().heard.get('a')).toMatchObject({ progress: 60 })

  const done = task('a', { status: 'completed', progress: 100, result: { imageUrl: '/media/a.png' } })
  streams[0]!.send(done, '8')
  expect(store.getSnapshot().tasks[0]).toMatchObject({ status: 'completed' })
  expect(ended).toEqual([[done]])
  expect(JSON.parse(saved.get('tasks') ?? '[]')).toEqual([{ ...done, ownerId: 'owner-1' }])
  expect(revalidations).toEqual([])
  await vi.advanceTimersByTimeAsync(500)
  expect(revalidations).toHaveLength(1)
  store.stop()
})

test('a repeated event, or one whose id is older than the last, is ignored; a queue place sent again without an id is not', async () => {
  const { store, streams } = setUp({ today: [task('a')] })
  store.start()
  await vi.advanceTimersByTimeAsync(0)
  streams[0]!.open()

  streams[0]!.send(task('a', { progress: 60 }), '8')
  const changes = vi.fn()
  store.subscribe(changes)
  streams[0]!.send(task('a', { progress: 60 }), '8') // the same change again
  expect(changes).not.toHaveBeenCalled()

  streams[0]!.send(task('a', { progress: 40 }), '5') // an older change, late
  expect(changes).not.toHaveBeenCalled()
  expect(store.getSnapshot().tasks[0]).toMatchObject({ progress: 60 })
  expect(store.getSnapshot().heard.get('a')).toMatchObject({ progress: 60 })

  // An event without an id of its own carries the last one: new data under it is still news.
  streams[0]!.send(task('b', { status: 'queued', queuePosition: 2, totalInQueue: 3 }), '8')
  streams[0]!.send(task('b', { status: 'queued', queuePosition: 1, totalInQueue: 3 }), '8')
  expect(store.getSnapshot().heard.get('b')).toMatchObject({ queuePosition: 1 })
  store.stop()
})

test('a dropped stream falls back to polling the active tasks every 2 s; the stream back, the polling stops', async () => {
  const polled = new Map([['a', task('a', { progress: 30 })]])
  const { store, streams, polls } = setUp({ today: [task('a')], polled })
  store.start()
  await vi.advanceTimersByTimeAsync(0)
  streams[0]!.open()
  await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS * 3)
  expect(polls()).toEqual([]) // the stream is up: nothing polls

  streams[0]!.drop()
  expect(store.getSnapshot().live).toBe(false)
  await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS)
  expect(polls()).toEqual(['/api/async-image/task/a'])
  expect(store.getSnapshot().tasks[0]).toMatchObject({ progress: 30 })
  await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS)
  expect(polls()).toHaveLength(2)

  streams[0]!.open() // the browser reconnected
  await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS * 3)
  expect(polls()).toHaveLength(2)
  expect(streams).toHaveLength(1) // the browser's own reconnection: no new stream
  store.stop()
})

test('a poll answered after the stream brought the end does not start the task again; a deleted task leaves the list', async () => {
  const polled = new Map([['a', task('a', { progress: 50 })]])
  const { store, streams, polls } = setUp({ today: [task('a'), task('gone')], polled })
  store.start()
  await vi.advanceTimersByTimeAsync(0)
  await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS) // never opened: polling
  expect(polls()).toEqual(['/api/async-image/task/a', '/api/async-image/task/gone'])
  expect(store.getSnapshot().tasks.map((entry) => entry.id)).toEqual(['a'])

  streams[0]!.open()
  streams[0]!.send(task('a', { status: 'failed', progress: 0 }), '3')
  store.submitted({ id: 'c', type: 'image' }) // a new active task, but the stream is up
  expect(store.getSnapshot().sidebarOpen).toBe(true)
  streams[0]!.drop()
  polled.set('a', task('a', { progress: 70 })) // a stale answer
  await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS)
  expect(store.getSnapshot().tasks.find((entry) => entry.id === 'a')).toMatchObject({ status: 'failed' })
  store.stop()
})

test('a stream the server refused is opened again after about 5 s', async () => {
  const { store, streams } = setUp()
  store.start()
  await vi.advanceTimersByTimeAsync(0)
  streams[0]!.readyState = 2
  streams[0]!.onerror?.(new Event('error'))
  await vi.advanceTimersByTimeAsync(4_999)
  expect(streams).toHaveLength(1)
  await vi.advanceTimersByTimeAsync(1)
  expect(streams).toHaveLength(2)
  store.stop()
})
