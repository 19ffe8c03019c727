import { json, type HeadersFunction, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { seo } from '#app/document/seo.ts'
import { getOptionalUser } from '#domain/sessions/auth.server.ts'
import { REFERRAL_COOKIE } from '#domain/sharing/referrals.server.ts'
import { CARD_HEIGHT, CARD_WIDTH, findSharePage, sharePagePath } from '#domain/sharing/share-pages.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { publicOrigin, usesSecureCookies } from '#platform/public-url.server.ts'

/**
 * /p/{slug}: a shared portrait (decision 0037). It shows the picture, what it was made with and
 * until when it stays, and "Make one of my pet"; never the owner's email, name or other versions.
 * A visit remembers the slug in a cookie for 30 days, read when the visitor registers (referrals).
 */

const REFERRAL_DAYS = 30

export async function loader({ request, params }: LoaderFunctionArgs) {
  const slug = params.slug ?? ''
  const page = await findSharePage(getDb(), slug)
  if (!page) throw new Response('This shared portrait is no longer available', { status: 404 })
  const user = await getOptionalUser(request)
  const origin = publicOrigin(getEnv())
  const path = sharePagePath(page.slug)
  // Signed in (the owner, or a friend with an account): straight to the generator; else register first.
  const makeHref = user ? page.made.generateHref : `/register?redirectTo=${encodeURIComponent(page.made.generateHref)}`
  const secure = usesSecureCookies(getEnv()) ? '; Secure' : ''
  const headers = new Headers({ 'Cache-Control': 'private, no-store' })
  if (!user) {
    headers.append(
      'Set-Cookie',
      `${REFERRAL_COOKIE}=${page.slug}; Path=/; Max-Age=${REFERRAL_DAYS * 86400}; HttpOnly; SameSite=Lax${secure}`,
    )
  }
  return json(
    {
      pageUrl: `${origin}${path}`,
      imageUrl: `${path}/image.webp`,
      cardUrl: `${origin}${path}/card.jpg`,
      width: page.width,
      height: page.height,
      madeWith: { kind: page.made.kind, name: page.made.name },
      makeHref,
      listed: page.listed,
      expiresAt: page.expires_at?.toISOString() ?? null,
    },
    { headers },
  )
}

export const headers: HeadersFunction = ({ loaderHeaders }) => loaderHeaders

export const meta: MetaFunction<typeof loader> = ({ data }) => {
  if (!data) return [{ title: 'Not found | Pawtrait' }, { name: 'robots', content: 'noindex' }]
  const title = `A pet portrait in ${data.madeWith.name}`
  const description = `Made with Pawtrait from a pet photo in the ${data.madeWith.name} ${data.madeWith.kind}. Make one of your own pet.`
  return [
    ...seo({ title, description }),
    { property: 'og:type', content: 'website' },
    { property: 'og:url', content: data.pageUrl },
    { property: 'og:image', content: data.cardUrl },
    { property: 'og:image:width', content: String(CARD_WIDTH) },
    { property: 'og:image:height', content: String(CARD_HEIGHT) },
    { property: 'og:image:alt', content: title },
    { name: 'twitter:card', content: 'summary_large_image' },
    { tagName: 'link', rel: 'canonical', href: data.pageUrl },
    ...(data.listed ? [] : [{ name: 'robots', content: 'noindex' }]),
  ]
}

const dateFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })

export default function SharedPortrait() {
  const data = useLoaderData<typeof loader>()
  return (
    <section className="card share-page">
      <h1>A pet portrait in {data.madeWith.name}</h1>
      <img
        className="share-portrait"
        src={data.imageUrl}
        alt={`A pet portrait in the ${data.madeWith.name} ${data.madeWith.kind}`}
        width={data.width ?? 1024}
        height={data.height ?? 1024}
        fetchPriority="high"
      />
      <p>
        Made with the {data.madeWith.kind} <strong>{data.madeWith.name}</strong>.
      </p>
      <Link className="button wide" to={data.makeHref}>
        Make one of my pet
      </Link>
      {data.expiresAt ? (
        <p className="muted">
          This page is available until{' '}
          <time dateTime={data.expiresAt}>{dateFormat.format(new Date(data.expiresAt))}</time>.
        </p>
      ) : null}
    </section>
  )
}
