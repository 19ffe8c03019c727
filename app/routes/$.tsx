// Any URL no other route matches: the root error boundary shows the friendly 404 page.
export async function loader() {
  throw new Response('Not found', { status: 404 })
}

export default function NotFound() {
  return null
}
