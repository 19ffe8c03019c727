import { waitFor } from './worker-process.ts'

export interface StreamEvent {
  id?: string
  event: string
  data: string
}

/**
 * Reads a text/event-stream answer as a browser's EventSource would: events (id, event, data)
 * and comment lines, as they arrive.
 */
export function readEventStream(response: Response) {
  const events: StreamEvent[] = []
  const comments: string[] = []
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  const done = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        buffer += value
        let end: number
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const event: StreamEvent = { event: 'message', data: '' }
          let hasData = false
          for (const line of block.split('\n')) {
            const [field, ...rest] = line.split(':')
            const value = rest.join(':').replace(/^ /, '')
            if (field === '') comments.push(value)
            else if (field === 'id') event.id = value
            else if (field === 'event') event.event = value
            else if (field === 'data') {
              event.data += (hasData ? '\n' : '') + value
              hasData = true
            }
          }
          if (hasData) events.push(event)
        }
      }
    } catch {
      // cancelled
    }
  })()
  return {
    events,
    comments,
    /** Settles when the server ends the stream (or it is closed here). */
    ended: done,
    /** The first event (so far or soon) that `match` accepts. */
    waitForEvent: (match: (event: StreamEvent) => boolean, timeout = 20_000) =>
      waitFor(() => events.find(match), { timeout, interval: 20 }),
    async close() {
      await reader.cancel().catch(() => {})
      await done
    },
  }
}
