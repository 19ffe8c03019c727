import { Scripts, UNSAFE_RemixContext } from '@remix-run/react'
import { Fragment, isValidElement, useContext, type ReactElement, type ReactNode } from 'react'

/**
 * Remix's <Scripts>, started once the page has loaded and painted rather than while it is parsed
 * (decision 0021). Every page works without JavaScript, so what a visitor sees first never waits
 * for the ~90 KB of React and Remix: on a slow phone link they no longer share the bandwidth with
 * the page's first images, and hydration follows right after.
 *
 * Remix's own elements are kept but rearranged, the same way on the server and in the browser so
 * that hydration matches: its `modulepreload` links are dropped, and its module script (route
 * imports, then the entry that hydrates) is rendered inert (`type="text/x-remix-module"`). After
 * the `load` event and the first contentful paint, and two frames more (or after MAX_WAIT_MS, if
 * an image hangs), a small inline script appends the preloads and a live copy of the module
 * script, with the request's CSP nonce, into a container React leaves alone (its children are
 * `dangerouslySetInnerHTML`, which hydration keeps as they are; only React's development build
 * would warn that they differ, hence `suppressHydrationWarning`), so the nodes it adds cannot break
 * hydration. Anything else Remix renders is kept as is; if its module script is ever missing,
 * Remix's output is used unchanged.
 *
 * The entry's own imports (React, React DOM, Remix) are evaluated first, by a module script of
 * their own, and Remix's script only in the next task: evaluating all of them at once was the
 * longest task of a page's start-up (issue 42).
 */
export function ScriptsAfterPaint({ nonce }: { nonce: string }) {
  // Called as a function, not rendered, so its elements can be rearranged; its hooks become this
  // component's, which is fine because it is called on every render.
  const rendered = Scripts({ nonce })
  const entryImports = useContext(UNSAFE_RemixContext)?.manifest.entry.imports ?? []
  const parts = flatten(rendered)
  const moduleScript = parts.find((part) => part.type === 'script' && part.props.type === 'module')
  const moduleSource = moduleScript?.props.dangerouslySetInnerHTML?.__html
  if (typeof moduleSource !== 'string') return rendered

  const isModulePreload = (part: ScriptPart) => part.type === 'link' && part.props.rel === 'modulepreload'
  const preloads = parts.filter(isModulePreload).map((part) => part.props.href)
  return (
    <>
      {parts.filter((part) => !isModulePreload(part) && part !== moduleScript)}
      <script
        id={MODULE_SCRIPT_ID}
        type="text/x-remix-module"
        data-preloads={JSON.stringify(preloads)}
        data-first={JSON.stringify(entryImports)}
        suppressHydrationWarning
        dangerouslySetInnerHTML={{ __html: moduleSource }}
      />
      <div id={HOST_ID} hidden suppressHydrationWarning dangerouslySetInnerHTML={EMPTY_HOST} />
      <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: START_AFTER_PAINT }} />
    </>
  )
}

type ScriptPart = ReactElement<{
  type?: string
  rel?: string
  href?: string
  dangerouslySetInnerHTML?: { __html?: unknown }
}>

/** Remix's output as a flat list of elements (it nests fragments and arrays). */
function flatten(node: ReactNode): ScriptPart[] {
  if (Array.isArray(node)) return node.flatMap(flatten)
  if (!isValidElement<{ children?: ReactNode }>(node)) return []
  return node.type === Fragment ? flatten(node.props.children) : [node as ScriptPart]
}

const MODULE_SCRIPT_ID = 'remix-module-script'
const HOST_ID = 'remix-module-host'
/** One object, so React never sees a changed value and never rewrites the host's children. */
const EMPTY_HOST = { __html: '' }
/** A page whose images never finish loading still hydrates after this long. */
const MAX_WAIT_MS = 3000

/** Source text without its comment lines and indentation: every page carries it in its HTML. */
function withoutComments(source: string) {
  return source
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('//'))
    .join('\n')
}

const START_AFTER_PAINT = withoutComments(`(function (current) {
  var started = false
  function start() {
    if (started) return
    started = true
    var source = document.getElementById(${JSON.stringify(MODULE_SCRIPT_ID)})
    var host = document.getElementById(${JSON.stringify(HOST_ID)})
    var preloads = JSON.parse(source.getAttribute('data-preloads'))
    var first = JSON.parse(source.getAttribute('data-first') || '[]')
    if (first.length === 0) {
      preload(preloads)
      return run(source.textContent)
    }
    // The entry's imports are fetched and evaluated by a module script of their own, which then
    // tells the host; the routes and the entry follow in another task. The other preloads are
    // inserted in a task of their own too (each costs the main thread a little).
    host.addEventListener('remix-entry-imports', function () {
      setTimeout(function () { run(source.textContent) })
    }, { once: true })
    run(first.map(function (href) { return 'import ' + JSON.stringify(href) + ';' }).join('') +
      'document.getElementById(' + JSON.stringify(host.id) + ").dispatchEvent(new Event('remix-entry-imports'))")
    setTimeout(function () {
      preload(preloads.filter(function (href) { return first.indexOf(href) < 0 }))
    })
  }
  function preload(hrefs) {
    var host = document.getElementById(${JSON.stringify(HOST_ID)})
    hrefs.forEach(function (href) {
      var link = document.createElement('link')
      link.rel = 'modulepreload'
      link.href = href
      host.appendChild(link)
    })
  }
  function run(text) {
    var script = document.createElement('script')
    script.type = 'module'
    script.nonce = current.nonce
    script.textContent = text
    document.getElementById(${JSON.stringify(HOST_ID)}).appendChild(script)
  }
  // Both the load event and the first contentful paint, then two frames more (for the images
  // that loaded last). Frames and paints do not come in a hidden tab: there timers alone decide.
  var loaded = false
  var painted = document.visibilityState === 'hidden' || !(window.PerformanceObserver &&
    PerformanceObserver.supportedEntryTypes && PerformanceObserver.supportedEntryTypes.indexOf('paint') >= 0)
  function whenLoadedAndPainted() {
    if (!loaded || !painted) return
    requestAnimationFrame(function () { requestAnimationFrame(function () { setTimeout(start) }) })
    setTimeout(start, 500)
  }
  if (!painted) {
    new PerformanceObserver(function (list, observer) {
      if (list.getEntriesByName('first-contentful-paint').length === 0) return
      observer.disconnect()
      painted = true
      whenLoadedAndPainted()
    }).observe({ type: 'paint', buffered: true })
  }
  addEventListener('load', function () {
    loaded = true
    whenLoadedAndPainted()
  }, { once: true })
  setTimeout(start, ${MAX_WAIT_MS})
})(document.currentScript)`)
