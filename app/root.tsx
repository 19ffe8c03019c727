import type { LinksFunction, MetaFunction } from '@remix-run/node'
import {
  isRouteErrorResponse,
  Link,
  Links,
  LiveReload,
  Meta,
  Outlet,
  ScrollRestoration,
  useRouteError,
} from '@remix-run/react'
import { lazy, type ReactNode, Suspense } from 'react'
import { unavailable } from '#app/components/error-boundary.tsx'
import { useNonce } from '#app/document/nonce.tsx'
import { ScriptsAfterPaint } from '#app/document/scripts-after-paint.tsx'
import { PageViewBeacon } from '#app/analytics/page-view-beacon.tsx'
import { SiteHeader } from '#app/components/site-header.tsx'
import { SiteStylesheets } from '#app/document/site-stylesheets.tsx'
import { seo } from '#app/document/seo.ts'
import { useHydrated } from '#app/hooks/use-hydrated.ts'
import { useRootData } from '#app/hooks/use-root-data.ts'
import { TaskStoreProvider } from '#app/generation/task-store-context.tsx'

// Its own chunk, loaded only for a signed-in user once the page has hydrated: a guest's pages never
// load it (decision 0021). It needs JavaScript anyway (a toggled panel fed by the live stream).
const TaskSidebar = lazy(() =>
  import('#app/generation/task-sidebar.tsx').then((module) => ({ default: module.TaskSidebar })),
)

function SignedInTaskSidebar({ userId }: { userId: string | undefined }) {
  const hydrated = useHydrated()
  return userId && hydrated ? (
    <Suspense fallback={null}>
      <TaskSidebar />
    </Suspense>
  ) : null
}

export const links: LinksFunction = () => [{ rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' }]

export const meta: MetaFunction = () =>
  seo({ title: 'AI pet portraits', description: 'Turn your pet photos into AI-generated portraits and videos.' })

export { rootLoader as loader } from '#app/document/root-data.server.ts'

function Document({ children }: { children: ReactNode }) {
  const nonce = useNonce()
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <SiteStylesheets nonce={nonce} />
        <Links />
      </head>
      <body>
        {children}
        <ScrollRestoration nonce={nonce} />
        <ScriptsAfterPaint nonce={nonce} />
        {/* Only in `npm run dev`'s builds (remix dev defines the origin): pages update after a rebuild. */}
        {process.env.REMIX_DEV_ORIGIN ? <LiveReload nonce={nonce} /> : null}
      </body>
    </html>
  )
}

export default function App() {
  const userId = useRootData()?.user?.id
  return (
    <Document>
      {/* The signed-in user's tasks, for the sidebar and every page (decision 0039). */}
      <TaskStoreProvider userId={userId}>
        <SiteHeader />
        <main className="page">
          <Outlet />
        </main>
        <SignedInTaskSidebar userId={userId} />
      </TaskStoreProvider>
      <PageViewBeacon />
    </Document>
  )
}

const errorPages: Record<number, { title: string; text: string }> = {
  404: { title: 'Page not found', text: 'The page you are looking for does not exist.' },
  503: unavailable,
  500: { title: 'Something went wrong', text: 'An unexpected error occurred. Please try again later.' },
}

export function ErrorBoundary() {
  const error = useRouteError()
  const status = isRouteErrorResponse(error) ? error.status : 500
  const { title, text } = errorPages[status] ?? errorPages[500]
  return (
    <Document>
      <SiteHeader />
      <main className="page">
        <div className="card center-card">
          <h1>{title}</h1>
          <p>{text}</p>
          <Link className="button" to="/">
            Go to Homepage
          </Link>
        </div>
      </main>
    </Document>
  )
}
