import { useMatches } from '@remix-run/react'
import { createContext, useContext } from 'react'
import { useHydrated } from '#app/hooks/use-hydrated.ts'
import { useRootData } from '#app/hooks/use-root-data.ts'
import accountsStyles from '#app/styles/accounts.css'
import analyticsStyles from '#app/styles/analytics.css'
import appStyles from '#app/styles/app.css'
import galleryStyles from '#app/styles/gallery.css'
import generateVideoStyles from '#app/styles/generate-video.css'
import generateStyles from '#app/styles/generate.css'
import historyStyles from '#app/styles/history.css'
import paymentsStyles from '#app/styles/payments.css'
import petsStyles from '#app/styles/pets.css'
import printsStyles from '#app/styles/prints.css'
import systemStatusStyles from '#app/styles/system-status.css'
import taskSidebarStyles from '#app/styles/task-sidebar.css'
import userManagementStyles from '#app/styles/user-management.css'

/** Every page's styles, base first (the order they cascade in). */
const STYLESHEETS = [
  appStyles,
  taskSidebarStyles,
  accountsStyles,
  analyticsStyles,
  galleryStyles,
  generateStyles,
  generateVideoStyles,
  historyStyles,
  paymentsStyles,
  petsStyles,
  printsStyles,
  systemStatusStyles,
  userManagementStyles,
]

/**
 * What a visitor who is not signed in can be shown: the gallery, the account forms, share pages and
 * the contact, error and notice pages; and by route, the one page a guest sees that needs more: the
 * generator, shown before signing in to use it. Every other page asks to sign in first.
 */
const GUEST_STYLESHEETS = [appStyles, accountsStyles, galleryStyles]
const GUEST_STYLESHEETS_BY_ROUTE: Record<string, string[]> = { 'routes/generate': [generateStyles, petsStyles] }

/** The text of a built stylesheet by its URL, or null; provided by entry.server (the browser has no such source). */
export const StylesheetSource = createContext<((href: string) => string | null) | null>(null)

/**
 * The site's stylesheets in the document head. A signed-in user's page inlines them all (about 6 KB
 * compressed), so the first paint waits for no request and client-side navigations never wait for
 * a page's styles. A guest's page inlines only the guest pages' (about half of that): the whole home page
 * then arrives in one round trip of a slow phone connection (decision 0021); the others follow as
 * stylesheet links once the page has hydrated, ready before signing in leads to the pages that use
 * them. In the browser an inlined text is the server-rendered element's own (so hydration matches);
 * a stylesheet the server could not read stays a plain link.
 */
export function SiteStylesheets({ nonce }: { nonce?: string }) {
  const readOnServer = useContext(StylesheetSource)
  const signedIn = Boolean(useRootData()?.user)
  const matches = useMatches()
  const hydrated = useHydrated()
  const forGuests = new Set([
    ...GUEST_STYLESHEETS,
    ...matches.flatMap(({ id }) => GUEST_STYLESHEETS_BY_ROUTE[id] ?? []),
  ])
  return STYLESHEETS.map((href) => {
    const text = readOnServer ? (signedIn || forGuests.has(href) ? readOnServer(href) : undefined) : inlinedText(href)
    if (text === undefined && !hydrated) return null
    return typeof text === 'string' ? (
      <style key={href} data-href={href} nonce={nonce} dangerouslySetInnerHTML={{ __html: text }} />
    ) : (
      <link key={href} rel="stylesheet" href={href} />
    )
  })
}

/**
 * In the browser, what the server made of a stylesheet: its inlined text, null for a plain link,
 * undefined for one it left out (a guest's page).
 */
function inlinedText(href: string) {
  const inlined = document.querySelector(`style[data-href="${href}"]`)
  if (inlined) return inlined.textContent ?? ''
  return document.querySelector(`link[rel="stylesheet"][href="${href}"]`) ? null : undefined
}
