import fs from 'node:fs'
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node'
import type { Role } from '#platform/db-schema.ts'
import { type Permission, permissionRules, permissionsOf } from '#domain/permissions/permissions.ts'
import { callRoute, createTestUser, makeRequest } from '#tests/helpers/app.ts'

/**
 * Walks every route × role from the permissions table: a guarded route lets in exactly the roles
 * the table grants its permission (the owner account included) and refuses the others the way the
 * table says. Every file in app/routes must be listed here, so a new route cannot skip the walk.
 */
const OWNER_EMAIL = 'owner-of-the-shop@pawtrait.test'
process.env.OWNER_EMAIL = OWNER_EMAIL

type Guard = Permission | 'signed-in' | 'public'
type Module = {
  loader?: (args: LoaderFunctionArgs) => unknown
  action?: (args: ActionFunctionArgs) => unknown
}
interface RouteCase {
  file: string
  guard: Guard
  /** How to call it: the path, its params and the method of each handler that is guarded. */
  path?: string
  params?: Record<string, string>
  calls?: ('GET' | 'POST' | 'PUT' | 'DELETE')[]
}

const anId = '00000000-0000-4000-8000-000000000000'
const routes: RouteCase[] = [
  { file: '$.tsx', guard: 'public' },
  { file: '_index.tsx', guard: 'manageGallery', path: '/', calls: ['POST'] },
  { file: 'inspiration.tsx', guard: 'manageGallery', path: '/inspiration', calls: ['POST'] },
  { file: 'analytics.tsx', guard: 'viewAnalytics', path: '/analytics', calls: ['GET'] },
  { file: 'api.analytics.overview.ts', guard: 'viewAnalytics', path: '/api/analytics/overview', calls: ['GET'] },
  { file: 'api.analytics.basic.ts', guard: 'viewBasicAnalytics', path: '/api/analytics/basic', calls: ['GET'] },
  { file: 'api.analytics.pageview.ts', guard: 'public' },
  { file: 'api.async-image.generate.ts', guard: 'signed-in', path: '/api/async-image/generate', calls: ['POST'] },
  {
    file: 'api.async-image.task.$id.ts',
    guard: 'signed-in',
    path: `/api/async-image/task/${anId}`,
    params: { id: anId },
    calls: ['GET'],
  },
  {
    file: 'api.async-image.task.$id.fix.ts',
    guard: 'signed-in',
    path: `/api/async-image/task/${anId}/fix`,
    params: { id: anId },
    calls: ['POST'],
  },
  {
    file: 'api.async-image.task.$id.reroll.ts',
    guard: 'signed-in',
    path: `/api/async-image/task/${anId}/reroll`,
    params: { id: anId },
    calls: ['POST'],
  },
  {
    file: 'api.async-image.task.$id.favourite.ts',
    guard: 'signed-in',
    path: `/api/async-image/task/${anId}/favourite`,
    params: { id: anId },
    calls: ['PUT'],
  },
  {
    file: 'api.async-image.task.$id.photo.ts',
    guard: 'signed-in',
    path: `/api/async-image/task/${anId}/photo`,
    params: { id: anId },
    calls: ['DELETE'],
  },
  {
    file: 'api.async-image.task.$id.share.ts',
    guard: 'signed-in',
    path: `/api/async-image/task/${anId}/share`,
    params: { id: anId },
    calls: ['POST'],
  },
  {
    file: 'api.async-image.task.$id.upscale.ts',
    guard: 'signed-in',
    path: `/api/async-image/task/${anId}/upscale`,
    params: { id: anId },
    calls: ['POST'],
  },
  {
    file: 'api.async-image.task.$id.zip.ts',
    guard: 'signed-in',
    path: `/api/async-image/task/${anId}/zip`,
    params: { id: anId },
    calls: ['GET'],
  },
  { file: 'api.async-image.tasks.today.ts', guard: 'signed-in', path: '/api/async-image/tasks/today', calls: ['GET'] },
  {
    file: 'api.async-video.delete.$taskId.ts',
    guard: 'signed-in',
    path: `/api/async-video/delete/${anId}`,
    params: { taskId: anId },
    calls: ['DELETE'],
  },
  { file: 'api.async-video.generate.ts', guard: 'generateVideos', path: '/api/async-video/generate', calls: ['POST'] },
  { file: 'api.async-video.history.ts', guard: 'signed-in', path: '/api/async-video/history', calls: ['GET'] },
  {
    file: 'api.async-video.task.$id.ts',
    guard: 'signed-in',
    path: `/api/async-video/task/${anId}`,
    params: { id: anId },
    calls: ['GET'],
  },
  { file: 'api.auth.account.ts', guard: 'signed-in', path: '/api/auth/account', calls: ['DELETE'] },
  { file: 'api.auth.export.ts', guard: 'signed-in', path: '/api/auth/export', calls: ['GET', 'POST'] },
  { file: 'api.auth.forgot-password.ts', guard: 'public' },
  { file: 'api.auth.google.callback.ts', guard: 'public' },
  { file: 'api.auth.google.ts', guard: 'public' },
  { file: 'api.auth.login.ts', guard: 'public' },
  { file: 'api.auth.logout.ts', guard: 'public' },
  { file: 'api.auth.me.ts', guard: 'signed-in', path: '/api/auth/me', calls: ['GET'] },
  { file: 'api.auth.register.ts', guard: 'public' },
  { file: 'api.auth.reset-password.ts', guard: 'public' },
  { file: 'api.auth.send-verification-code.ts', guard: 'public' },
  { file: 'api.auth.update-avatar.ts', guard: 'signed-in', path: '/api/auth/update-avatar', calls: ['POST'] },
  { file: 'api.auth.update-profile.ts', guard: 'signed-in', path: '/api/auth/update-profile', calls: ['PUT'] },
  { file: 'api.config.email-verification.ts', guard: 'public' },
  { file: 'api.config.usdt-wallet.ts', guard: 'public' },
  { file: 'api.image.all.ts', guard: 'public' },
  { file: 'api.image.credit-history.ts', guard: 'signed-in', path: '/api/image/credit-history', calls: ['GET'] },
  {
    file: 'api.image.delete.$id.ts',
    guard: 'signed-in',
    path: `/api/image/delete/${anId}`,
    params: { id: anId },
    calls: ['DELETE'],
  },
  {
    file: 'api.image.delete.inspiration.$id.ts',
    guard: 'manageGallery',
    path: `/api/image/delete/inspiration/${anId}`,
    params: { id: anId },
    calls: ['DELETE'],
  },
  { file: 'api.image.history.ts', guard: 'signed-in', path: '/api/image/history', calls: ['GET'] },
  {
    file: 'api.image.pending-payment-proofs.ts',
    guard: 'reviewPayments',
    path: '/api/image/pending-payment-proofs',
    calls: ['GET'],
  },
  {
    file: 'api.image.review-payment-proof.$id.ts',
    guard: 'reviewPayments',
    path: `/api/image/review-payment-proof/${anId}`,
    params: { id: anId },
    calls: ['PUT'],
  },
  { file: 'api.image.styles.ts', guard: 'manageGallery', path: '/api/image/styles', calls: ['POST'] },
  {
    file: 'api.image.submit-payment-proof.ts',
    guard: 'signed-in',
    path: '/api/image/submit-payment-proof',
    calls: ['POST'],
  },
  { file: 'api.image.update-case.ts', guard: 'manageGallery', path: '/api/image/update-case', calls: ['POST'] },
  { file: 'api.payment.checkout.ts', guard: 'signed-in', path: '/api/payment/checkout', calls: ['POST'] },
  { file: 'api.pets.ts', guard: 'signed-in', path: '/api/pets', calls: ['GET', 'POST'] },
  { file: 'api.titles.ts', guard: 'public' },
  { file: 'api.titles.preview.ts', guard: 'signed-in', path: '/api/titles/preview?title=Rex', calls: ['GET'] },
  {
    file: 'api.async-image.task.$id.title.ts',
    guard: 'signed-in',
    path: `/api/async-image/task/${anId}/title`,
    params: { id: anId },
    calls: ['PUT'],
  },
  {
    file: 'api.pets.$id.ts',
    guard: 'signed-in',
    path: `/api/pets/${anId}`,
    params: { id: anId },
    calls: ['PUT', 'DELETE'],
  },
  { file: 'api.photo-check.ts', guard: 'signed-in', path: '/api/photo-check', calls: ['POST'] },
  {
    file: 'api.share.$slug.ts',
    guard: 'signed-in',
    path: `/api/share/a-slug`,
    params: { slug: 'a-slug' },
    calls: ['DELETE'],
  },
  // Stripe's deliveries carry no session: their signature is checked instead (decision 0041).
  { file: 'api.stripe.webhook.ts', guard: 'public' },
  { file: 'api.system-config.ts', guard: 'editSystemConfig', path: '/api/system-config', calls: ['PUT'] },
  {
    file: 'api.userManagement.stats.consumption.ts',
    guard: 'manageUsers',
    path: '/api/userManagement/stats/consumption',
    calls: ['GET'],
  },
  {
    file: 'api.userManagement.users.$id.ban.ts',
    guard: 'manageUsers',
    path: `/api/userManagement/users/${anId}/ban`,
    params: { id: anId },
    calls: ['PUT'],
  },
  {
    file: 'api.userManagement.users.$id.credits.ts',
    guard: 'manageUsers',
    path: `/api/userManagement/users/${anId}/credits`,
    params: { id: anId },
    calls: ['PUT'],
  },
  {
    file: 'api.userManagement.users.$id.ts',
    guard: 'manageUsers',
    path: `/api/userManagement/users/${anId}`,
    params: { id: anId },
    calls: ['DELETE'],
  },
  {
    file: 'api.userManagement.users.ts',
    guard: 'manageUsers',
    path: '/api/userManagement/users',
    calls: ['GET', 'POST'],
  },
  { file: 'api.tasks.events.ts', guard: 'signed-in', path: '/api/tasks/events', calls: ['GET'] },
  { file: 'auth.callback.tsx', guard: 'public' },
  { file: 'contact.tsx', guard: 'public' },
  { file: 'credit-history.tsx', guard: 'signed-in', path: '/credit-history', calls: ['GET'] },
  { file: 'csp-report.ts', guard: 'public' },
  { file: 'email-verified.tsx', guard: 'public' },
  { file: 'forgot-password.tsx', guard: 'public' },
  // No session: the signed link emailed and shown on /profile is the credential (decision 0038).
  { file: 'exports.$id.ts', guard: 'public' },
  { file: 'generate-video.tsx', guard: 'generateVideos', path: '/generate-video', calls: ['GET', 'POST'] },
  { file: 'generate.tsx', guard: 'signed-in', path: '/generate', calls: ['POST'] },
  { file: 'healthz.ts', guard: 'public' },
  { file: 'history.tsx', guard: 'signed-in', path: '/history', calls: ['GET', 'POST'] },
  { file: 'login.tsx', guard: 'public' },
  { file: 'logout.ts', guard: 'public' },
  { file: 'media.$.ts', guard: 'public' },
  // A share page and its pictures are public for as long as the owner shares them (decision 0037).
  { file: 'p.$slug.card[.]jpg.ts', guard: 'public' },
  { file: 'p.$slug.image[.]webp.ts', guard: 'public' },
  { file: 'p.$slug.tsx', guard: 'public' },
  { file: 'payment-review.tsx', guard: 'reviewPayments', path: '/payment-review', calls: ['GET', 'POST'] },
  // No session: an <img> of another site's front end loads it; the short-lived signature is the credential (decision 0027).
  { file: 'payment-screenshots.$id.ts', guard: 'public' },
  { file: 'pets.tsx', guard: 'signed-in', path: '/pets', calls: ['GET', 'POST'] },
  { file: 'orders.tsx', guard: 'signed-in', path: '/orders', calls: ['GET', 'POST'] },
  { file: 'prints.order.tsx', guard: 'signed-in', path: '/prints/order', calls: ['GET', 'POST'] },
  { file: 'print-orders.tsx', guard: 'managePrintOrders', path: '/print-orders', calls: ['GET', 'POST'] },
  // No session: the print lab downloads it; the 14-day signature is the credential (decision 0042).
  { file: 'print-files.$id.ts', guard: 'public' },
  { file: 'api.prints.options.ts', guard: 'signed-in', path: '/api/prints/options', calls: ['GET'] },
  { file: 'api.prints.quote.ts', guard: 'signed-in', path: '/api/prints/quote', calls: ['POST'] },
  { file: 'api.prints.mockup.ts', guard: 'signed-in', path: '/api/prints/mockup', calls: ['GET'] },
  { file: 'api.prints.orders.ts', guard: 'signed-in', path: '/api/prints/orders', calls: ['GET', 'POST'] },
  {
    file: 'api.prints.orders.$id.ts',
    guard: 'signed-in',
    path: `/api/prints/orders/${anId}`,
    params: { id: anId },
    calls: ['GET'],
  },
  {
    file: 'api.prints.orders.$id.cancel.ts',
    guard: 'signed-in',
    path: `/api/prints/orders/${anId}/cancel`,
    params: { id: anId },
    calls: ['POST'],
  },
  // The lab posts without a session; the secret in the path is the credential, any other is a 404.
  { file: 'api.prints.callback.$secret.ts', guard: 'public' },
  { file: 'profile.tsx', guard: 'signed-in', path: '/profile', calls: ['GET', 'POST'] },
  { file: 'purchase-credits.tsx', guard: 'signed-in', path: '/purchase-credits', calls: ['GET', 'POST'] },
  { file: 'readyz.ts', guard: 'public' },
  { file: 'register.tsx', guard: 'public' },
  { file: 'robots[.]txt.ts', guard: 'public' },
  { file: 'sitemap[.]xml.ts', guard: 'public' },
  { file: 'shares.tsx', guard: 'signed-in', path: '/shares', calls: ['GET', 'POST'] },
  { file: 'title-preview.tsx', guard: 'signed-in', path: '/title-preview?title=Rex', calls: ['GET'] },
  { file: 'system-status.tsx', guard: 'viewSystemStatus', path: '/system-status', calls: ['GET'] },
  { file: 'unsubscribe.tsx', guard: 'public' },
  { file: 'update-case.tsx', guard: 'manageGallery', path: '/update-case', calls: ['GET', 'POST'] },
  { file: 'user-management.tsx', guard: 'manageUsers', path: '/user-management', calls: ['GET', 'POST'] },
]

type Viewer = 'guest' | Role | 'owner'
const viewers: Viewer[] = ['guest', 'user', 'admin', 'superadmin', 'owner']
const tokens: Partial<Record<Viewer, string>> = {}

beforeAll(async () => {
  for (const role of ['user', 'admin', 'superadmin'] as const) tokens[role] = (await createTestUser({ role })).token
  tokens.owner = (await createTestUser({ role: 'user', email: OWNER_EMAIL, emailVerified: true })).token
})

function allowed(viewer: Viewer, guard: Guard) {
  if (guard === 'public') return true
  if (viewer === 'guest') return false
  if (guard === 'signed-in') return true
  return permissionsOf(viewer === 'owner' ? 'user' : viewer, viewer === 'owner').includes(guard)
}

/** What a refused request must answer, from the table's rule for the guard. */
function expectedRefusal(viewer: Viewer, guard: Guard, api: boolean) {
  if (viewer === 'guest') {
    const rule = guard === 'signed-in' || guard === 'public' ? null : permissionRules[guard]
    if (api || rule?.guests === 'refuse') return { status: 401 }
    return { status: 302, location: /^\/login\?redirectTo=/ }
  }
  const rule = permissionRules[guard as Permission]
  if (!api && rule.others === 'home') return { status: 302, location: /^\/$/ }
  return { status: 403 }
}

/** A route's source, or that of the route it re-exports its handlers from (/inspiration shows /). */
function routeSource(file: string): string {
  const source = fs.readFileSync(`app/routes/${file}`, 'utf8')
  const reexported = /export \{[^}]*\b(?:loader|action)\b[^}]*\} from '\.\/([^']+)'/.exec(source)
  return reexported ? routeSource(reexported[1]) : source
}

test('every route file is in the walk, and its source asks for the guard listed', () => {
  const files = fs.readdirSync('app/routes').sort()
  expect(routes.map((route) => route.file).sort()).toEqual(files)
  for (const route of routes) {
    const source = routeSource(route.file)
    // requireUserId: the same check, answering the id only (from the session cache, decision 0045).
    if (route.guard === 'signed-in') expect(source, route.file).toMatch(/requireUser(Id)?\(request\)/)
    else if (route.guard !== 'public' && !source.includes('galleryAction')) {
      expect(source, route.file).toContain(`requirePermission(request, '${route.guard}')`)
    }
  }
})

const guarded = routes.filter((route) => route.calls)
const cases = guarded.flatMap((route) =>
  route.calls!.flatMap((method) => viewers.map((viewer) => [route.file, method, viewer, route] as const)),
)

test.each(cases)('%s %s as %s', async (_file, method, viewer, route) => {
  const module = (await import(`#app/routes/${route.file}`)) as Module
  const handler = method === 'GET' ? module.loader : module.action
  expect(handler, `${route.file} has a handler for ${method}`).toBeTypeOf('function')
  const api = route.path!.startsWith('/api/')
  const request = makeRequest(route.path!, {
    method,
    token: tokens[viewer],
    ...(method === 'GET' ? {} : api ? { json: {} } : { body: new URLSearchParams({ intent: 'none' }) }),
    headers: method === 'GET' || api ? {} : { 'content-type': 'application/x-www-form-urlencoded' },
  })
  const response = await callRoute(handler as never, request, route.params)
  if (allowed(viewer, route.guard)) {
    expect(response.status, 'not refused').not.toBe(401)
    expect(response.status).not.toBe(403)
    expect(response.headers.get('location') ?? '').not.toMatch(/^\/login|^\/$/)
    return
  }
  const refusal = expectedRefusal(viewer, route.guard, api)
  expect(response.status).toBe(refusal.status)
  if ('location' in refusal) expect(response.headers.get('location')).toMatch(refusal.location!)
  if (api) expect(await response.json()).toEqual({ message: expect.any(String) })
})

test('the table: roles grow upwards, and the owner account gets the admin screens and videos', () => {
  expect(permissionsOf('user', false)).toEqual([])
  expect(permissionsOf('admin', false)).toEqual(['manageGallery', 'viewBasicAnalytics'])
  expect(permissionsOf('superadmin', false)).toEqual(Object.keys(permissionRules))
  expect(permissionsOf('user', true).sort()).toEqual(['generateVideos', 'manageGallery', 'viewBasicAnalytics'])
})
