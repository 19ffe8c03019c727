import type { MetaDescriptor } from '@remix-run/node'

const siteName = 'Pawtrait'

interface PageSeo {
  title: string
  description: string
  keywords?: string
  /** schema.org JSON-LD for the page; the root adds WebSite data where a page gives none. */
  jsonLd?: Record<string, unknown>
}

/** Title, description, keywords and JSON-LD for a route's `meta` export. */
export function seo({ title, description, keywords, jsonLd }: PageSeo): MetaDescriptor[] {
  const tags: MetaDescriptor[] = [
    { title: `${title} | ${siteName}` },
    { name: 'description', content: description },
    { property: 'og:title', content: title },
    { property: 'og:description', content: description },
    { property: 'og:site_name', content: siteName },
  ]
  if (keywords) tags.push({ name: 'keywords', content: keywords })
  tags.push({ 'script:ld+json': jsonLd ?? websiteJsonLd })
  return tags
}

const websiteJsonLd = {
  '@context': 'https://schema.org',
  '@type': 'WebSite',
  name: siteName,
  description: 'Turn your pet photos into AI-generated portraits and videos.',
}
