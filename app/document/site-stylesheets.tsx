import { createContext, useContext } from 'react'
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

/** Every page's styles, base first: together about 5 KB compressed, less than one more request costs on a phone. */
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

/** The text of a built stylesheet by its URL, or null; provided by entry.server (the browser has no such source). */
export const StylesheetSource = createContext<((href: string) => string | null) | null>(null)

/**
 * The site's stylesheets inlined into the document head, so the first paint waits for no request,
 * and client-side navigations never wait for a page's styles. In the browser the text is the
 * server-rendered element's own (so hydration matches); a stylesheet the server could not read
 * stays a plain link.
 */
export function SiteStylesheets({ nonce }: { nonce?: string }) {
  const readOnServer = useContext(StylesheetSource)
  return STYLESHEETS.map((href) => {
    const text = readOnServer
      ? readOnServer(href)
      : (document.querySelector(`style[data-href="${href}"]`)?.textContent ?? null)
    return text === null ? (
      <link key={href} rel="stylesheet" href={href} />
    ) : (
      <style key={href} data-href={href} nonce={nonce} dangerouslySetInnerHTML={{ __html: text }} />
    )
  })
}
