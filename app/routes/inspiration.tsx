import type { ActionFunctionArgs, LinksFunction, MetaFunction } from '@remix-run/node'
import {
  firstRowPreloads,
  GalleryErrorBoundary,
  galleryLinks,
  GalleryPage,
  shouldRevalidateGallery,
} from '#app/components/gallery/gallery-page.tsx'
import { galleryAction, loadGallery } from '#app/features/gallery/gallery-page.server.ts'
import { seo } from '#app/utils/seo.ts'

/** The same screen as /, under its own title. */
export const meta: MetaFunction<typeof loader> = ({ data, location }) => [
  ...seo({
    title: 'Inspiration gallery',
    description: 'Pet portrait templates in fashion, sports, festival, cosplay, travel, oil painting and more styles.',
    keywords: 'pet portrait ideas, pet portrait templates, pet art styles, inspiration',
  }),
  ...firstRowPreloads(data, location.search),
]

export const links: LinksFunction = galleryLinks
export const loader = () => loadGallery()
export const action = ({ request }: ActionFunctionArgs) => galleryAction(request)
export const shouldRevalidate = shouldRevalidateGallery
export const ErrorBoundary = GalleryErrorBoundary
export default GalleryPage
