import { useNavigate } from '@remix-run/react'
import { useEffect } from 'react'

/** Goes to `to` after `seconds`: through the router with JavaScript, by a meta refresh without it. */
export function DelayedRedirect({ to, seconds }: { to: string; seconds: number }) {
  const navigate = useNavigate()
  useEffect(() => {
    const timer = setTimeout(() => navigate(to), seconds * 1000)
    return () => clearTimeout(timer)
  }, [to, seconds, navigate])
  return (
    <noscript>
      <meta httpEquiv="refresh" content={`${seconds};url=${to}`} />
    </noscript>
  )
}
