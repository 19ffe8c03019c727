import { zhUserManagement as t } from '#app/user-management/zh-user-management.ts'

/** 'YYYY-MM-DD HH:mm' in UTC: the same on the server and in the browser, so hydration matches. */
export function formatTime(iso: string | null) {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : t.neverLoggedIn
}
