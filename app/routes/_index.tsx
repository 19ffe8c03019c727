import type { ActionFunctionArgs, LinksFunction } from '@remix-run/node'
import {
  GalleryErrorBoundary,
  galleryLinks,
  galleryMeta,
  GalleryPage,
  shouldRevalidateGallery,
} from '#app/gallery/gallery-page.tsx'
import { galleryAction, loadGallery } from '#app/gallery/gallery-page.server.ts'
import { AccountDeletedNotice } from '#app/accounts/own-data.tsx'

export const meta = galleryMeta({
  title: 'AI pet portraits from your photos',
  description: 'Browse pet portrait templates by style and turn your own pet photo into an AI portrait in seconds.',
  keywords: 'AI pet portrait, pet photo art, dog portrait, cat portrait, pet templates',
})

export const links: LinksFunction = galleryLinks
export const loader = loadGallery
export const action = ({ request }: ActionFunctionArgs) => galleryAction(request)
export const shouldRevalidate = shouldRevalidateGallery
export const ErrorBoundary = GalleryErrorBoundary

/** The gallery; after an account was deleted (/?deleted=account) with a line that says so. */
export default function Index() {
  return (
    <>
      <AccountDeletedNotice />
      <GalleryPage />
    </>
  )
}
