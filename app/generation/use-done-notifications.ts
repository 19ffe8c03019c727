import { useCallback, useReducer } from 'react'
import type { ClientTask } from '#domain/generation/task-view.ts'
import { useHydrated } from '#app/hooks/use-hydrated.ts'

const SETTING_KEY = 'pawtrait:notify-when-done'

const notificationsOn = () =>
  'Notification' in window && Notification.permission === 'granted' && localStorage.getItem(SETTING_KEY) === 'on'

/**
 * Browser notifications when a task ends while the tab is in the background. Off until the user
 * turns them on with a button (the permission is asked then, never on page load); remembered in
 * this browser.
 */
export function useDoneNotifications() {
  const hydrated = useHydrated()
  // The permission and the setting live in the browser; a change re-renders to read them again.
  const [, changed] = useReducer((count: number) => count + 1, 0)
  const permission = hydrated && 'Notification' in window ? Notification.permission : 'denied'
  const supported = permission !== 'denied'
  const enabled = hydrated && notificationsOn()

  const enable = useCallback(async () => {
    if ((await Notification.requestPermission()) === 'granted') localStorage.setItem(SETTING_KEY, 'on')
    changed()
  }, [])

  const disable = useCallback(() => {
    localStorage.removeItem(SETTING_KEY)
    changed()
  }, [])

  return { supported, enabled, enable, disable }
}

/** Notifies of each task that has just ended, if notifications are on and the tab is hidden (the task store calls it). */
export function notifyEnded(ended: ClientTask[]) {
  if (!notificationsOn() || !document.hidden) return
  for (const task of ended) {
    const what = task.type === 'video' ? 'video' : 'portrait'
    const title = task.status === 'completed' ? `Your ${what} is ready` : `Your ${what} could not be made`
    const body = task.status === 'completed' ? task.description : 'Your credits have been refunded.'
    new Notification(title, { body, tag: task.id, icon: '/favicon.svg' })
  }
}
