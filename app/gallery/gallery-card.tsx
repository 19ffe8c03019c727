import { Form, Link } from '@remix-run/react'
import { DISPLAY_WIDTH, type GalleryTemplate, THUMBNAIL_WIDTH } from '#domain/gallery/template-json.ts'
import type { ImageLoading } from '#app/gallery/first-row.ts'

// Column widths of the masonry grid in gallery.css (4, 3 or 2 columns inside a 1200 px page).
export const GRID_SIZES =
  '(min-width: 1200px) 280px, (min-width: 1040px) calc((100vw - 88px) / 4), ' +
  '(min-width: 720px) calc((100vw - 72px) / 3), calc((100vw - 56px) / 2)'

const GUEST_TEMPLATE_ALERT = 'Please log in first to use templates'

/** Both renditions with their real widths (a narrow original was never enlarged). */
export function gallerySrcSet(image: Pick<GalleryTemplate, 'thumbnailUrl' | 'imageUrl' | 'width'>): string {
  const small = Math.min(THUMBNAIL_WIDTH, image.width)
  const large = Math.min(DISPLAY_WIDTH, image.width)
  const candidates = [`${image.thumbnailUrl} ${small}w`]
  if (large > small) candidates.push(`${image.imageUrl} ${large}w`)
  return candidates.join(', ')
}

interface GalleryCardProps {
  image: GalleryTemplate
  styleLabel: string
  /** See imageLoading: the first row's images load at once, the rest when scrolled near. */
  loading: ImageLoading
  useTemplateHref: string
  guest: boolean
  admin: boolean
}

export function GalleryCard({ image, styleLabel, loading, useTemplateHref, guest, admin }: GalleryCardProps) {
  return (
    <figure className="gallery-card">
      <img
        src={image.thumbnailUrl}
        srcSet={gallerySrcSet(image)}
        sizes={GRID_SIZES}
        width={image.width}
        height={image.height}
        alt={image.name}
        loading={loading === 'lazy' ? 'lazy' : 'eager'}
        fetchPriority={loading === 'high' ? 'high' : undefined}
        decoding="async"
      />
      <figcaption>
        <span className="gallery-card-name">{image.name}</span>
        <span className="gallery-card-style">{styleLabel}</span>
      </figcaption>
      <div className="gallery-card-actions">
        <Link
          to={useTemplateHref}
          className="button"
          preventScrollReset
          // Guests are sent to /login by the link itself; the alert says why first.
          onClick={guest ? () => window.alert(GUEST_TEMPLATE_ALERT) : undefined}
        >
          Use template
        </Link>
        {admin ? <DeleteTemplateForm id={image._id} name={image.name} /> : null}
      </div>
    </figure>
  )
}

/** A two-step delete made of <details>, so the confirmation works without JavaScript too. */
function DeleteTemplateForm({ id, name }: { id: string; name: string }) {
  return (
    <details className="delete-template">
      <summary className="button secondary" aria-label={`Delete ${name}`}>
        Delete
      </summary>
      <Form method="post" className="delete-template-confirm">
        <input type="hidden" name="id" value={id} />
        <span>Delete this template for everyone?</span>
        <button type="submit" className="button danger">
          Yes, delete
        </button>
      </Form>
    </details>
  )
}
