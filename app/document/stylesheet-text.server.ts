import fs from 'node:fs'
import path from 'node:path'

const texts = new Map<string, string | null>()

/**
 * The text of a built stylesheet named by its public URL (/build/_assets/…css), read once from
 * public/ and kept (the names are fingerprinted); null when it is not there.
 */
export function readBuiltStylesheet(href: string): string | null {
  if (!texts.has(href)) {
    let text: string | null = null
    if (/^\/build\/[\w/.-]+\.css$/.test(href) && !href.includes('..')) {
      try {
        text = fs.readFileSync(path.resolve('public', href.slice(1)), 'utf8')
      } catch {
        text = null
      }
    }
    texts.set(href, text)
  }
  return texts.get(href) ?? null
}
