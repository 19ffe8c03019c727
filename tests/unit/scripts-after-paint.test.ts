import { createRequestHandler, type ServerBuild } from '@remix-run/node'
import { RemixServer, Scripts } from '@remix-run/react'
import { createElement, Fragment, isValidElement, type ReactElement, type ReactNode } from 'react'
import { renderToString } from 'react-dom/server'
import { ScriptsAfterPaint } from '#app/document/scripts-after-paint.tsx'

/**
 * ScriptsAfterPaint (app/document/scripts-after-paint.tsx) calls Remix's `Scripts` as a plain
 * function and reshapes what it returns: fragments and arrays of host elements, among them
 * `<link rel="modulepreload" href>` elements and one `<script type="module">` whose
 * `dangerouslySetInnerHTML.__html` imports the routes and then the entry. If a Remix upgrade
 * changes that shape, the component silently falls back to Remix's own output (the scripts start
 * while the page is parsed again); these tests fail instead. Rendered through Remix's request
 * handler with a minimal build, under the app's future flags (remix.config.js).
 */
const NONCE = 'test-nonce'

const assets = {
  entry: { module: '/build/entry.client-E.js', imports: ['/build/_shared/react-A.js', '/build/_shared/remix-B.js'] },
  routes: {
    root: {
      id: 'root',
      path: '',
      module: '/build/root-R.js',
      imports: ['/build/_shared/root-dependency-C.js'],
      ...withoutHandlers(),
    },
    'routes/_index': {
      id: 'routes/_index',
      parentId: 'root',
      index: true,
      module: '/build/routes/_index-I.js',
      ...withoutHandlers(),
    },
  },
  url: '/build/manifest-V.js',
  version: 'V',
}

function withoutHandlers() {
  return { hasAction: false, hasLoader: false, hasClientAction: false, hasClientLoader: false, hasErrorBoundary: false }
}

type Part = ReactElement<{
  type?: string
  rel?: string
  href?: string
  nonce?: string
  dangerouslySetInnerHTML?: { __html?: unknown }
}>

/** What `Scripts` returned during the last render, called the way ScriptsAfterPaint calls it. */
let remixOutput: ReactNode

function CaptureScripts() {
  remixOutput = Scripts({ nonce: NONCE })
  return null
}

function Root() {
  return createElement(
    'html',
    null,
    createElement('body', null, createElement(ScriptsAfterPaint, { nonce: NONCE }), createElement(CaptureScripts)),
  )
}

async function renderPage() {
  // A variable specifier: remix.config.js is plain JavaScript without declarations.
  const configUrl = new URL('../../remix.config.js', import.meta.url).href
  const { default: remixConfig } = (await import(configUrl)) as { default: { future: ServerBuild['future'] } }
  const build: ServerBuild = {
    mode: 'production',
    entry: {
      module: {
        default: (request, status, headers, context) => {
          headers.set('Content-Type', 'text/html')
          const html = renderToString(createElement(RemixServer, { context, url: request.url }))
          return new Response(`<!DOCTYPE html>${html}`, { status, headers })
        },
      },
    },
    routes: {
      root: { id: 'root', path: '', module: { default: Root } },
      'routes/_index': { id: 'routes/_index', parentId: 'root', index: true, module: { default: () => null } },
    },
    assets,
    publicPath: '/build/',
    assetsBuildDirectory: 'public/build',
    future: remixConfig.future,
    isSpaMode: false,
  }
  const response = await createRequestHandler(build, 'production')(new Request('http://localhost/'))
  expect(response.status).toBe(200)
  return response.text()
}

/** Remix's output as a flat list of elements, as ScriptsAfterPaint flattens it. */
function flatten(node: ReactNode): Part[] {
  if (Array.isArray(node)) return node.flatMap(flatten)
  if (!isValidElement<{ children?: ReactNode }>(node)) return []
  return node.type === Fragment ? flatten(node.props.children) : [node as Part]
}

const isPreload = (part: Part) => part.type === 'link' && part.props.rel === 'modulepreload'
const isModuleScript = (part: Part) => part.type === 'script' && part.props.type === 'module'
const everyPreload = [
  assets.entry.module,
  ...assets.entry.imports,
  assets.routes.root.module,
  ...assets.routes.root.imports,
  assets.routes['routes/_index'].module,
]

test("Remix's Scripts, called as a function, returns modulepreload links and one module script that imports the routes, then the entry", async () => {
  await renderPage()
  const parts = flatten(remixOutput)

  expect(parts.length).toBeGreaterThan(0)
  expect(parts.every((part) => typeof part.type === 'string')).toBe(true)
  expect(new Set(parts.filter(isPreload).map((part) => part.props.href))).toEqual(new Set(everyPreload))

  const moduleScripts = parts.filter(isModuleScript)
  expect(moduleScripts).toHaveLength(1)
  const source = moduleScripts[0].props.dangerouslySetInnerHTML?.__html
  expect(typeof source).toBe('string')
  expect(source).toContain(`import * as route0 from ${JSON.stringify(assets.routes.root.module)}`)
  expect(source).toContain(`import * as route1 from ${JSON.stringify(assets.routes['routes/_index'].module)}`)
  expect(source).toMatch(new RegExp(`import\\(${JSON.stringify(assets.entry.module)}\\);\\s*$`))

  // What is left is kept as it is: the context script, which carries the nonce.
  const rest = parts.filter((part) => !isPreload(part) && !isModuleScript(part))
  expect(rest.map((part) => [part.type, part.props.type, part.props.nonce])).toEqual([['script', undefined, NONCE]])
  expect(rest[0].props.dangerouslySetInnerHTML?.__html).toContain('window.__remixContext = ')
})

test('ScriptsAfterPaint renders no preload and no live module script: the module script is inert until the page has painted', async () => {
  const html = await renderPage()
  const remixParts = flatten(remixOutput)
  const moduleSource = remixParts.find(isModuleScript)?.props.dangerouslySetInnerHTML?.__html

  expect(html).not.toMatch(/<link[^>]*modulepreload/)
  expect(html).not.toMatch(/<script[^>]*type="module"/)
  const inert =
    /<script id="remix-module-script" type="text\/x-remix-module" data-preloads="([^"]*)" data-first="([^"]*)">([\s\S]*?)<\/script>/.exec(
      html,
    )
  expect(inert).not.toBeNull()
  const preloads = JSON.parse(inert![1].replaceAll('&quot;', '"')) as string[]
  expect(preloads).toEqual(remixParts.filter(isPreload).map((part) => part.props.href))
  // The entry's own imports, which the starter evaluates in a task before the routes.
  expect(JSON.parse(inert![2].replaceAll('&quot;', '"'))).toEqual(assets.entry.imports)
  expect(inert![3]).toBe(moduleSource)

  // Remix's context script is kept, and the starter runs with the nonce.
  expect(html).toContain(`<script nonce="${NONCE}">window.__remixContext = `)
  expect(html).toContain('<div id="remix-module-host" hidden=""></div>')
  expect(html).toMatch(new RegExp(`<script nonce="${NONCE}">\\(function \\(current\\)`))
})
