import { Transform } from 'node:stream'
import { type AppLoadContext, createReadableStreamFromReadable, type EntryContext } from '@remix-run/node'
import { RemixServer } from '@remix-run/react'
import { isbot } from 'isbot'
import { renderToPipeableStream } from 'react-dom/server'
import { NonceProvider } from '#app/document/nonce.tsx'
import { StylesheetSource } from '#app/document/site-stylesheets.tsx'
import { recordPageView } from '#domain/analytics/events.server.ts'
import { readBuiltStylesheet } from '#app/document/stylesheet-text.server.ts'

const ABORT_DELAY_MS = 5_000

declare module '@remix-run/node' {
  interface AppLoadContext {
    /** This request's Content-Security-Policy nonce (server/security-headers.ts); absent where no express request is behind the render. */
    cspNonce?: string
  }
}

/** The signed-in user's id from the root loader's data, which this render already loaded. */
function signedInUserId(context: EntryContext): string | null {
  const root = context.staticHandlerContext.loaderData.root as { user?: { id?: unknown } | null } | undefined
  return typeof root?.user?.id === 'string' ? root.user.id : null
}

/**
 * A stream that passes on what was written to it in one turn of the event loop as one chunk. Remix's
 * adapter flushes the compression after every chunk (for streamed content), and React writes a page
 * in pieces of about 2 KB, all in one turn: a flush per piece made the home page's compressed HTML
 * about 4 % larger, enough to need a second round trip on a slow connection (decision 0021).
 */
function chunkPerTurn() {
  let waiting: Buffer[] = []
  const passWaiting = () => {
    if (waiting.length > 0) stream.push(Buffer.concat(waiting))
    waiting = []
  }
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (waiting.length === 0) setImmediate(passWaiting)
      waiting.push(chunk)
      done()
    },
    flush(done) {
      passWaiting()
      done()
    },
  })
  return stream
}

/**
 * Renders a document. Browsers get the shell as soon as it is ready and the rest streamed in; bots
 * wait for the whole page. Successful page loads are counted as page views (bots excluded there).
 */
export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  if (request.method === 'GET' && responseStatusCode === 200) {
    recordPageView(request, { path: new URL(request.url).pathname, userId: signedInUserId(remixContext) })
  }
  const waitForAll = isbot(request.headers.get('user-agent')) || remixContext.isSpaMode

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false
    let status = responseStatusCode
    const respond = () => {
      shellRendered = true
      const body = chunkPerTurn()
      responseHeaders.set('Content-Type', 'text/html')
      resolve(new Response(createReadableStreamFromReadable(body), { headers: responseHeaders, status }))
      pipe(body)
    }
    // React's and Remix's inline scripts carry the request's CSP nonce (server/security-headers.ts).
    const nonce = loadContext.cspNonce ?? ''
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider nonce={nonce}>
        <StylesheetSource.Provider value={readBuiltStylesheet}>
          <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY_MS} />
        </StylesheetSource.Provider>
      </NonceProvider>,
      {
        nonce: nonce || undefined,
        onShellReady: waitForAll ? undefined : respond,
        onAllReady: waitForAll ? respond : undefined,
        onShellError: reject,
        onError(error) {
          status = 500
          // Errors before the shell is ready reject above and are logged by Remix.
          if (shellRendered) console.error(error)
        },
      },
    )
    setTimeout(abort, ABORT_DELAY_MS)
  })
}
