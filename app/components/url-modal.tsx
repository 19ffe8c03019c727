import { Link, useNavigate } from '@remix-run/react'
import { type ReactNode, useEffect } from 'react'

/**
 * A modal opened by a URL (a search parameter), so it also works without JavaScript: closing is a
 * link to `closeHref`, and Escape follows the same link.
 */
export function UrlModal(props: { title: string; closeHref: string; closeLabel: string; children: ReactNode }) {
  const navigate = useNavigate()
  const { closeHref } = props
  useEffect(() => {
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key === 'Escape') navigate(closeHref, { replace: true, preventScrollReset: true })
    }
    window.addEventListener('keydown', closeOnEscape)
    return () => window.removeEventListener('keydown', closeOnEscape)
  }, [navigate, closeHref])

  return (
    <div className="modal-backdrop">
      <div className="modal" role="dialog" aria-modal="true" aria-labelledby="url-modal-title">
        <div className="url-modal-header">
          <h2 id="url-modal-title">{props.title}</h2>
          <Link to={closeHref} replace preventScrollReset className="url-modal-close" aria-label={props.closeLabel}>
            ×
          </Link>
        </div>
        {props.children}
      </div>
    </div>
  )
}
