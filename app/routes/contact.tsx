import { json, type MetaFunction } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { Icon } from '#app/components/icons/icon.tsx'
import { getEnv } from '#platform/env.server.ts'
import { seo } from '#app/document/seo.ts'

export const meta: MetaFunction = () =>
  seo({
    title: 'Contact us',
    description:
      'Questions about your pet portraits, credits or payments? Reach the Pawtrait team by email or social media.',
    keywords: 'contact, support, pet portrait help, Pawtrait',
    jsonLd: { '@context': 'https://schema.org', '@type': 'ContactPage', name: 'Contact Pawtrait' },
  })

/** SOCIAL_LINKS is a comma-separated list of `Label=https://…` pairs. */
function parseSocialLinks(value: string) {
  return value
    .split(',')
    .map((entry) => entry.split('='))
    .filter((parts): parts is [string, string] => parts.length === 2 && /^https?:\/\//.test(parts[1].trim()))
    .map(([label, url]) => ({ label: label.trim(), url: url.trim() }))
}

export async function loader() {
  const env = getEnv()
  return json({ email: env.CONTACT_EMAIL, social: parseSocialLinks(env.SOCIAL_LINKS) })
}

export default function Contact() {
  const { email, social } = useLoaderData<typeof loader>()
  return (
    <section className="contact">
      <h1>Contact us</h1>
      <p className="muted">We usually answer within one working day.</p>
      <div className="contact-grid">
        <a className="card contact-card" href={`mailto:${email}`}>
          <Icon name="mail" className="contact-icon" />
          <h2>Email</h2>
          <p>{email}</p>
        </a>
        {social.map((link) => (
          <a key={link.url} className="card contact-card" href={link.url} target="_blank" rel="noopener noreferrer">
            <Icon name="link" className="contact-icon" />
            <h2>{link.label}</h2>
            <p>{new URL(link.url).host}</p>
          </a>
        ))}
      </div>
    </section>
  )
}
