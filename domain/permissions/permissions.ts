/**
 * Who may do what (spec section 6): the one table. The server enforces it for every page, action
 * and API route (permissions.server.ts); the menus read the same table, so a link shows exactly
 * when its page would open. Everything a signed-in user may do without a role (generate images,
 * history, profile, credits) needs only a session and is not listed.
 *
 * Client-safe: no server imports, so components can read it.
 */
import type { Role } from '#platform/db-schema.ts'

export type Permission =
  | 'manageGallery'
  | 'reviewPayments'
  | 'editSystemConfig'
  | 'viewAnalytics'
  | 'viewBasicAnalytics'
  | 'manageUsers'
  | 'generateVideos'
  | 'viewSystemStatus'
  | 'managePrintOrders'

interface Rule {
  roles: readonly Role[]
  /** The OWNER_EMAIL account (once its address is verified) has it whatever its role. */
  owner: boolean
  /** Pages: guests are sent to /login, or shown the page's refusal (401) as the spec has it. */
  guests: 'login' | 'refuse'
  /** Pages: signed-in users without it see the page's refusal (403), or are sent home. */
  others: 'refuse' | 'home'
  /** The refusal's message when it is not the usual one ("log in again" / "Access denied"). */
  guestMessage?: string
  deniedMessage?: string
}

export const VIDEO_LOGIN_FIRST = 'Please log in first to generate videos'
export const VIDEO_ACCESS_RESTRICTED = 'Video generation is only available to super administrators.'

const superadminPage = { roles: ['superadmin'], owner: false, guests: 'login', others: 'refuse' } as const

export const permissionRules: Record<Permission, Rule> = {
  manageGallery: { roles: ['admin', 'superadmin'], owner: true, guests: 'login', others: 'refuse' },
  reviewPayments: superadminPage,
  editSystemConfig: superadminPage,
  viewAnalytics: { ...superadminPage, others: 'home' },
  // GET /api/analytics/basic, the spec's variant for other roles (decision 0014): activity counts only.
  viewBasicAnalytics: { roles: ['admin', 'superadmin'], owner: true, guests: 'login', others: 'refuse' },
  viewSystemStatus: { ...superadminPage, others: 'home' },
  // /print-orders: every order, retries of failed submissions, the curated print catalogue (issue 39).
  managePrintOrders: superadminPage,
  manageUsers: { ...superadminPage, guests: 'refuse' },
  generateVideos: {
    roles: ['superadmin'],
    owner: true,
    guests: 'refuse',
    others: 'refuse',
    guestMessage: VIDEO_LOGIN_FIRST,
    deniedMessage: VIDEO_ACCESS_RESTRICTED,
  },
}

/**
 * A super administrator's account cannot be deleted, by its owner ("Delete my account") or by anyone
 * else, nor banned.
 */
export const isProtectedAccount = (role: Role) => role === 'superadmin'

const PERMISSIONS = Object.keys(permissionRules) as Permission[]

/** Every permission of an account with `role`, plus the owner's when it is the owner account. */
export function permissionsOf(role: Role, isOwner: boolean): Permission[] {
  return PERMISSIONS.filter((permission) => {
    const rule = permissionRules[permission]
    return rule.roles.includes(role) || (isOwner && rule.owner)
  })
}

/** The admin links of the user menu, each shown to whoever holds its page's permission. */
export const adminLinks: readonly { to: string; label: string; permission: Permission }[] = [
  { to: '/update-case', label: 'Update Case', permission: 'manageGallery' },
  { to: '/payment-review', label: 'Payment Review', permission: 'reviewPayments' },
  { to: '/analytics', label: 'Analytics', permission: 'viewAnalytics' },
  { to: '/user-management', label: 'User Management', permission: 'manageUsers' },
  { to: '/system-status', label: 'System Status', permission: 'viewSystemStatus' },
  { to: '/print-orders', label: 'Print Orders', permission: 'managePrintOrders' },
]
