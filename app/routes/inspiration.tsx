import { galleryMeta } from '#app/gallery/gallery-page.tsx'

/** The same screen as /, under its own title. */
export { action, default, ErrorBoundary, links, loader, shouldRevalidate } from './_index.tsx'

export const meta = galleryMeta({
  title: 'Inspiration gallery',
  description: 'Pet portrait templates in fashion, sports, festival, cosplay, travel, oil painting and more styles.',
  keywords: 'pet portrait ideas, pet portrait templates, pet art styles, inspiration',
})
