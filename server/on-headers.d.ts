// on-headers (expressjs) ships no types: it calls `listener` with the response just before the
// status line and headers are written.
declare module 'on-headers' {
  import type { ServerResponse } from 'node:http'
  export default function onHeaders(res: ServerResponse, listener: (this: ServerResponse) => void): void
}
