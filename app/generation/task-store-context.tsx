import { useRevalidator } from '@remix-run/react'
import {
  createContext,
  startTransition,
  useContext,
  useEffect,
  useRef,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from 'react'
import type { ClientTask } from '#domain/generation/task-view.ts'
import { notifyEnded } from './use-done-notifications.ts'
import { createTaskStore, type TaskStore, type TaskStoreSnapshot } from './task-store.ts'

const TaskStoreContext = createContext<TaskStore | null>(null)

/**
 * Starts the signed-in user's task store once the page has hydrated (root.tsx) and gives it to
 * every page below; a guest, and the server's render, have none.
 */
export function TaskStoreProvider({ userId, children }: { userId: string | undefined; children: ReactNode }) {
  const [store, setStore] = useState<TaskStore | null>(null)
  const revalidator = useRevalidator()
  // The store calls the latest revalidate without being made again.
  const revalidate = useRef(revalidator.revalidate)
  useEffect(() => {
    revalidate.current = revalidator.revalidate
  })

  useEffect(() => {
    if (!userId) return
    const started = createTaskStore({
      ownerId: userId,
      fetch: (url, init) => fetch(url, init),
      storage: localStorage,
      openStream: typeof EventSource === 'undefined' ? null : (url) => new EventSource(url),
      onEnded: notifyEnded,
      revalidate: () => revalidate.current(),
    })
    started.start()
    // A transition: every page below re-renders with the store, in short slices rather than one long task.
    startTransition(() => setStore(started))
    return () => {
      started.stop()
      setStore(null)
    }
  }, [userId])

  return <TaskStoreContext.Provider value={store}>{children}</TaskStoreContext.Provider>
}

/** The signed-in user's task store, to tell it of a submission or a change; null for a guest and before hydration. */
export const useTaskStore = () => useContext(TaskStoreContext)

const NO_TASKS: TaskStoreSnapshot = { tasks: [], heard: new Map(), live: false, sidebarOpen: false }
const noChanges = () => () => {}

/** What the store holds now; re-renders when it changes. */
export function useTaskStoreSnapshot(): TaskStoreSnapshot {
  const store = useTaskStore()
  return useSyncExternalStore(store?.subscribe ?? noChanges, store?.getSnapshot ?? (() => NO_TASKS), () => NO_TASKS)
}

/**
 * The task a page shows (the one its loader found, then the one it submitted) with the newest
 * state the store heard of it: its progress and result come whether or not the sidebar is open.
 */
export function useShownTask(loaded: ClientTask | null) {
  const [shown, setShown] = useState<ClientTask | null>(loaded)
  const store = useTaskStore()
  const id = shown?.id ?? ''
  // Only what the store heard of this task: its other news (today's list arriving) leaves the page as it is.
  const heard = useSyncExternalStore(
    store?.subscribe ?? noChanges,
    () => store?.getSnapshot().heard.get(id),
    () => undefined,
  )
  return [shown && heard ? { ...shown, ...heard } : shown, setShown] as const
}
