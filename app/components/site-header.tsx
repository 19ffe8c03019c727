import { Form, Link, NavLink, useLocation } from '@remix-run/react'
import { type ReactNode, useEffect, useRef } from 'react'
import { Icon, type IconName } from '#app/components/icons/icon.tsx'
import { useCan, useRootData } from '#app/hooks/use-root-data.ts'
import { adminLinks } from '#domain/permissions/permissions.ts'

/**
 * The fixed header: brand, main links, the credits and user menus, the mobile slide-out menu and
 * the Surprise button. Menus are <details> elements, so they open with a click, Enter or Space and
 * work without JavaScript; with it they also close on navigation, Escape and outside clicks.
 */
export function SiteHeader() {
  const data = useRootData()
  const user = data?.user
  const can = useCan()
  const headerRef = useCloseMenusOnNavigation()

  const mainLinks = (
    <>
      <NavLink to="/inspiration">Inspiration</NavLink>
      <NavLink to="/generate">Generate</NavLink>
      {can('generateVideos') ? <NavLink to="/generate-video">Generate Video</NavLink> : null}
      <NavLink to="/contact">Contact</NavLink>
    </>
  )
  const accountLinks = user ? (
    <>
      <Link to="/history">History</Link>
      <Link to="/pets">My Pets</Link>
      <Link to="/orders">My Prints</Link>
      <Link to="/profile">Profile</Link>
      {adminLinks
        .filter((link) => can(link.permission))
        .map((link) => (
          <Link key={link.to} to={link.to}>
            {link.label}
          </Link>
        ))}
      <Form method="post" action="/logout">
        <button type="submit" className="link-button">
          Logout
        </button>
      </Form>
    </>
  ) : null

  return (
    <header className="site-header" ref={headerRef}>
      <details className="menu mobile-menu">
        <summary aria-label="Open menu">
          <Icon name="menu" />
        </summary>
        <nav className="mobile-panel" aria-label="Mobile">
          <Link to="/">Home</Link>
          {mainLinks}
          {user ? (
            <>
              <Link to="/credit-history">Credit History</Link>
              <Link to="/purchase-credits">Purchase Credits</Link>
              {accountLinks}
            </>
          ) : (
            <>
              <Link to="/login">Login</Link>
              <Link to="/register">Register</Link>
            </>
          )}
        </nav>
      </details>
      <Link to="/" className="brand">
        <Icon name="paw" className="brand-icon" /> Pawtrait
      </Link>
      <nav className="main-nav" aria-label="Main">
        {mainLinks}
      </nav>
      <div className="header-actions">
        {data?.surpriseUrl ? (
          <a className="surprise-button" href={data.surpriseUrl} target="_blank" rel="noopener noreferrer">
            <Icon name="gift" /> Surprise
          </a>
        ) : null}
        {user ? (
          <>
            <HeaderMenu label={`${user.credits} credits`} icon="coin" className="credits-menu">
              <Link to="/credit-history">Credit History</Link>
              <Link to="/purchase-credits">Purchase Credits</Link>
            </HeaderMenu>
            <HeaderMenu label={user.name} icon="user" className="user-menu">
              {accountLinks}
            </HeaderMenu>
          </>
        ) : (
          <>
            <Link to="/login">Login</Link>
            <Link to="/register" className="button">
              Register
            </Link>
          </>
        )}
      </div>
      {user ? (
        <Link to="/credit-history" className="floating-credits" aria-label={`${user.credits} credits: credit history`}>
          <Icon name="coin" /> {user.credits}
        </Link>
      ) : null}
    </header>
  )
}

function HeaderMenu({
  label,
  icon,
  className,
  children,
}: {
  label: string
  icon: IconName
  className: string
  children: ReactNode
}) {
  return (
    <details className={`menu ${className}`}>
      <summary>
        <Icon name={icon} /> {label}
      </summary>
      <div className="menu-panel">{children}</div>
    </details>
  )
}

/** Closes open menus when the route changes, on Escape, and on a click outside them. */
function useCloseMenusOnNavigation() {
  const ref = useRef<HTMLElement>(null)
  const location = useLocation()
  // Only a navigation closes the menus: not hydration, which would shut a menu opened before it.
  const shownLocation = useRef(location)
  useEffect(() => {
    if (shownLocation.current === location) return
    shownLocation.current = location
    ref.current?.querySelectorAll('details[open]').forEach((menu) => menu.removeAttribute('open'))
  }, [location])
  useEffect(() => {
    const closeAll = (except?: Node) =>
      ref.current?.querySelectorAll('details[open]').forEach((menu) => {
        if (!except || !menu.contains(except)) menu.removeAttribute('open')
      })
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return
      const open = ref.current?.querySelector<HTMLElement>('details[open] > summary')
      closeAll()
      open?.focus()
    }
    const onClick = (event: MouseEvent) => closeAll(event.target as Node)
    document.addEventListener('keydown', onKey)
    document.addEventListener('click', onClick)
    return () => {
      document.removeEventListener('keydown', onKey)
      document.removeEventListener('click', onClick)
    }
  }, [])
  return ref
}
