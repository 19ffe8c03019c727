import { Form, Link, NavLink } from '@remix-run/react'
import { useRootData } from '#app/utils/root-data.ts'

/** The fixed header: brand, main links, the credits and user menus (plain <details>, so they work without JavaScript). */
export function SiteHeader() {
  const data = useRootData()
  const user = data?.user
  return (
    <header className="site-header">
      <Link to="/" className="brand">
        🐾 Pawtrait
      </Link>
      <nav className="main-nav" aria-label="Main">
        <NavLink to="/inspiration">Inspiration</NavLink>
        <NavLink to="/generate">Generate</NavLink>
        {data?.access.video ? <NavLink to="/generate-video">Generate Video</NavLink> : null}
        <NavLink to="/contact">Contact</NavLink>
      </nav>
      <div className="header-actions">
        {user ? (
          <>
            <details className="menu">
              <summary>
                <span aria-hidden>🪙</span> {user.credits} credits
              </summary>
              <div className="menu-panel">
                <Link to="/credit-history">Credit History</Link>
                <Link to="/purchase-credits">Purchase Credits</Link>
              </div>
            </details>
            <details className="menu">
              <summary>{user.name}</summary>
              <div className="menu-panel">
                <Link to="/history">History</Link>
                <Link to="/profile">Profile</Link>
                {data.access.admin ? <Link to="/update-case">Update Case</Link> : null}
                {data.access.admin ? <Link to="/payment-review">Payment Review</Link> : null}
                {data.access.superadmin ? <Link to="/analytics">Analytics</Link> : null}
                {data.access.superadmin ? <Link to="/user-management">User Management</Link> : null}
                <Form method="post" action="/logout">
                  <button type="submit" className="link-button">
                    Logout
                  </button>
                </Form>
              </div>
            </details>
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
    </header>
  )
}
