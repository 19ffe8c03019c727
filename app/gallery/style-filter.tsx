import { Link } from '@remix-run/react'
import { ALL_STYLES, type StyleJson } from '#domain/gallery/template-json.ts'

/**
 * The category buttons: plain links to ?style=, so filtering works without JavaScript; with it the
 * gallery shows the pending URL at once (see useGalleryLocation).
 */
export function StyleFilter(props: { styles: StyleJson[]; selected: string; hrefFor: (style: string) => string }) {
  const options = [{ value: ALL_STYLES, label: 'All' }, ...props.styles]
  return (
    <nav className="style-filter" aria-label="Style categories">
      {options.map((style) => (
        <Link
          key={style.value}
          to={props.hrefFor(style.value)}
          className="style-chip"
          aria-current={style.value === props.selected ? 'page' : undefined}
          replace
          preventScrollReset
        >
          {style.label}
        </Link>
      ))}
    </nav>
  )
}
