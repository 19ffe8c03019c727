import type { IncomingMessage } from 'node:http'
import type { NodeHandler } from './node-handler.ts'

/**
 * A request answered before its body was read to the end (a 413 for an 11 MB photo, a 400 for a
 * refused form) used to leave the unread bytes on a kept-alive connection: the next request on it
 * failed with ECONNRESET. Such an answer now says `Connection: close`, and once it is sent the rest
 * of the body is read and dropped before the socket closes (closing with unread bytes makes the
 * kernel send a reset, which can swallow the answer itself). A client that keeps sending past
 * `maxDrainBytes`, or for longer than `maxDrainMs`, is cut off.
 */
export function closeAfterEarlyAnswers({ maxDrainBytes = 64 * 1024 * 1024, maxDrainMs = 30_000 } = {}): NodeHandler {
  return (req, res, next) => {
    // Nothing can be left unread of a request without a body (a GET): it needs none of this, and a
    // live stream would keep it for its whole life.
    if (!hasBody(req)) return next()
    const writeHead = res.writeHead
    res.writeHead = function (this: typeof res, ...args: Parameters<typeof writeHead>) {
      if (!req.complete) {
        res.setHeader('Connection', 'close')
        // Node ends such a socket with destroySoon() once the answer is out: half-close it instead,
        // so that the rest of the body can still be read.
        const socket = req.socket
        socket.destroySoon = () => socket.end()
      }
      return writeHead.apply(this, args)
    } as typeof writeHead
    res.on('finish', () => {
      if (req.readableEnded) return
      // The web stream Remix read the body through would buffer what it never reads.
      req.removeAllListeners('data')
      // All of the body has arrived but part of it was never read: drop it, the connection stays usable.
      if (req.complete) return void req.resume()
      const socket = req.socket
      const cutOff = setTimeout(() => socket.destroy(), maxDrainMs).unref()
      let drained = 0
      req.on('data', (chunk: Buffer) => {
        drained += chunk.byteLength
        if (drained > maxDrainBytes) socket.destroy()
      })
      req.once('end', () => {
        clearTimeout(cutOff)
        socket.destroy()
      })
      req.resume()
    })
    next()
  }
}

/** Whether the request announced a body (HTTP/1.1 requests have one only with either header). */
const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0
