import type { LinkDescriptor, MetaDescriptor, MetaFunction } from '@remix-run/node'
import type { ShouldRevalidateFunction } from '@remix-run/react'
import { Link, useActionData, useLoaderData, useLocation, useNavigation } from '@remix-run/react'
import { AccessDenied } from '#app/components/access-denied.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import type { galleryAction, loadGallery } from '#app/gallery/gallery-page.server.ts'
import { ALL_STYLES, type GalleryTemplate, isApplicable, type StyleJson } from '#domain/gallery/template-json.ts'
import { useCan, useRootData } from '#app/hooks/use-root-data.ts'
import { seo } from '#app/document/seo.ts'
import { imageLoading } from '#app/gallery/first-row.ts'
import { GalleryCard, gallerySrcSet, GRID_SIZES } from '#app/gallery/gallery-card.tsx'
import { StyleFilter } from '#app/gallery/style-filter.tsx'
import { UseTemplateModal } from '#app/gallery/use-template-modal.tsx'

/**
 * The URL the gallery shows: while a link within the gallery (a filter, a modal) is loading, its
 * target already, so switching is instant; without JavaScript the server renders the same URL.
 */
function useGalleryLocation() {
  const location = useLocation()
  const navigation = useNavigation()
  const pending = navigation.location?.pathname === location.pathname ? navigation.location : null
  return { pathname: location.pathname, params: new URLSearchParams((pending ?? location).search) }
}

const GRID_ID = 'templates'

/**
 * The gallery's head link: the first paint waits until the intro and the style filter are parsed
 * and the grid begins (rel=expect, blocking=render). A paint of a half-parsed intro moves when the
 * rest arrives (its centred text reflows); waiting for the whole grid would also wait for the
 * scripts, which run once parsing ends.
 */
export const galleryLinks = (): LinkDescriptor[] => [
  { rel: 'expect', href: `#${GRID_ID}`, blocking: 'render' } as LinkDescriptor,
]

/** The chosen style (an unknown one shows all) and its templates. */
function templatesShown(styles: StyleJson[], images: GalleryTemplate[], params: URLSearchParams) {
  const requested = params.get('style') ?? ALL_STYLES
  const selected = styles.some((style) => style.value === requested) ? requested : ALL_STYLES
  const shown = selected === ALL_STYLES ? images : images.filter((image) => image.parameters.style === selected)
  return { selected, shown }
}

/**
 * Head links that preload the images of the phone layout's first screen (imageLoading's 'high'), so
 * they are requested before the rest of the page is even parsed.
 */
function firstRowPreloads(
  data: { styles: StyleJson[]; images: GalleryTemplate[] } | undefined,
  search: string,
): MetaDescriptor[] {
  if (!data) return []
  const { shown } = templatesShown(data.styles, data.images, new URLSearchParams(search))
  const loading = imageLoading(shown)
  return shown
    .filter((_, index) => loading[index] === 'high')
    .map((image) => ({
      tagName: 'link',
      rel: 'preload',
      as: 'image',
      href: image.thumbnailUrl,
      imageSrcSet: gallerySrcSet(image),
      imageSizes: GRID_SIZES,
      fetchPriority: 'high',
    }))
}

/** A gallery route's `meta`: its own title and keywords, and the preloads of the shown first row. */
export const galleryMeta =
  (page: Parameters<typeof seo>[0]): MetaFunction<typeof loadGallery> =>
  ({ data, location }) => [...seo(page), ...firstRowPreloads(data, location.search)]

/** / and /inspiration: style filter, masonry grid, Use template modal, admin delete. */
export function GalleryPage() {
  const { styles, images, imageCost, hdCost } = useLoaderData<typeof loadGallery>()
  const actionData = useActionData<typeof galleryAction>()
  const root = useRootData()
  const can = useCan()
  const { pathname, params } = useGalleryLocation()

  const { selected, shown } = templatesShown(styles, images, params)
  const loading = imageLoading(shown)
  const labels = new Map(styles.map((style) => [style.value, style.label]))
  const openTemplate = images.find((image) => image._id === params.get('template'))

  const hrefWith = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(params)
    for (const [key, value] of Object.entries(changes)) {
      if (value === null) next.delete(key)
      else next.set(key, value)
    }
    const search = next.toString()
    return search ? `${pathname}?${search}` : pathname
  }
  const styleHref = (style: string) => hrefWith({ style: style === ALL_STYLES ? null : style, template: null })
  const templateHref = (id: string) => {
    const href = hrefWith({ template: id })
    return root?.user ? href : `/login?redirectTo=${encodeURIComponent(href)}`
  }

  return (
    <section className="gallery">
      <header className="gallery-intro">
        <h1>Inspiration gallery</h1>
        <p className="muted">
          Pick a template and upload your pet&apos;s photo, or start from scratch in the{' '}
          <Link to="/generate">generator</Link>.
        </p>
      </header>
      <StyleFilter styles={styles} selected={selected} hrefFor={styleHref} />
      {actionData && 'message' in actionData ? (
        <p className="form-error" role="alert">
          {actionData.message}
        </p>
      ) : null}
      {shown.length === 0 ? (
        <p className="muted gallery-empty">No templates in this style yet.</p>
      ) : (
        <div className="masonry" id={GRID_ID}>
          {shown.map((image, index) => (
            <GalleryCard
              key={image._id}
              image={image}
              styleLabel={labels.get(image.parameters.style) ?? image.parameters.style}
              loading={loading[index]}
              useTemplateHref={templateHref(image._id)}
              guest={!root?.user}
              admin={can('manageGallery')}
            />
          ))}
        </div>
      )}
      {openTemplate && root?.user && isApplicable(openTemplate) ? (
        <UseTemplateModal
          image={openTemplate}
          imageCost={imageCost}
          hdCost={hdCost}
          closeHref={hrefWith({ template: null })}
        />
      ) : null}
    </section>
  )
}

/** Filtering and opening a template change only the query: the loader's answer does not depend on it. */
export const shouldRevalidateGallery: ShouldRevalidateFunction = ({
  currentUrl,
  nextUrl,
  formMethod,
  defaultShouldRevalidate,
}) => (formMethod || currentUrl.pathname !== nextUrl.pathname ? defaultShouldRevalidate : false)

export function GalleryErrorBoundary() {
  return (
    <GeneralErrorBoundary
      statusHandlers={{ 403: () => <AccessDenied message="Only administrators can delete inspiration images." /> }}
      title="Inspiration gallery"
      fallback="Failed to load inspiration images. Please try again later."
    />
  )
}
