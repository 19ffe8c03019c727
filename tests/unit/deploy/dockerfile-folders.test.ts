import fs from 'node:fs'
import path from 'node:path'

/**
 * The production image holds only what the Dockerfile copies. Every module a production start or
 * an operator's command loads (fly.toml's processes and release command, the image's CMD, the npm
 * scripts run on a machine, and the Remix build's externals) must live in a copied folder, or it
 * fails there, which no other test sees.
 */

const root = path.resolve(import.meta.dirname, '../../..')
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8')
const imports: Record<string, string> = JSON.parse(read('package.json')).imports

/** What the final stage copies, as repository paths ('build', 'domain', 'package.json', …). */
function copiedPaths() {
  const finalStage = read('Dockerfile')
    .split(/^FROM /m)
    .pop()!
  const copies = [...finalStage.matchAll(/^COPY (?:--from=\S+ )?(\S+) (\S+)$/gm)]
  return copies
    .map(([, source, target]) => (target === './' ? path.posix.basename(source) : target))
    .map((target) => path.posix.normalize(target).replace(/\/$/, ''))
    .filter((target) => target !== 'node_modules')
}

/** The npm scripts an operator runs on a production machine (docs/deploy.md, decision 0017). */
const OPERATOR_SCRIPTS = ['migrate', 'providers:check', 'analytics:rollup']

function entryPoints() {
  const scripts: Record<string, string> = JSON.parse(read('package.json')).scripts
  const commands = [
    // Node's own flags (the web's --max-semi-space-size) may come before the file.
    ...read('fly.toml').matchAll(/"node (?:--\S+ )*(\S+\.ts)"/g),
    ...read('Dockerfile').matchAll(/"node", (?:"--[^"]+", )*"(\S+\.ts)"/g),
    ...OPERATOR_SCRIPTS.map((name) => /^node (\S+\.ts)$/.exec(scripts[name])!),
  ]
  return [...new Set(commands.map(([, file]) => file))]
}

/** A local specifier resolved to a repository path, or null for a package. */
function resolveLocal(from: string, specifier: string) {
  if (specifier.startsWith('.')) return path.posix.join(path.posix.dirname(from), specifier)
  const alias = Object.keys(imports).find((key) => specifier.startsWith(key.replace('*', '')))
  if (!alias) return null
  return path.posix.normalize(imports[alias].replace('*', specifier.slice(alias.length - 1)))
}

function modulesLoadedFrom(entries: string[]) {
  const seen = new Set<string>()
  const queue = [...entries]
  while (queue.length > 0) {
    const file = queue.pop()!
    if (seen.has(file)) continue
    seen.add(file)
    const text = read(file)
    for (const [, specifier] of text.matchAll(/(?:from|import\()\s*'([^']+)'/g)) {
      const local = resolveLocal(file, specifier)
      if (local && /\.tsx?$/.test(local) && !/^import type /m.test(text.split(specifier)[0].split('\n').pop()!)) {
        queue.push(local)
      }
    }
  }
  return [...seen]
}

test('the image copies every folder a production start loads modules from', () => {
  const copied = copiedPaths()
  const entries = entryPoints()
  expect(entries).toEqual(
    expect.arrayContaining(['server/index.ts', 'worker/index.ts', 'scripts/migrate.ts', 'scripts/providers-check.ts']),
  )
  // The Remix build leaves #platform external: the built routes load it from source.
  const loaded = modulesLoadedFrom([...entries, 'platform/db.server.ts'])
  expect(loaded).toContain('domain/credits/credits.server.ts')
  const missing = loaded.filter((file) => !copied.some((folder) => file === folder || file.startsWith(`${folder}/`)))
  expect(missing).toEqual([])
  // What the build and the production start read besides modules.
  expect(copied).toEqual(expect.arrayContaining(['build', 'public', 'package.json', 'migrations']))
})

test('the check sees a folder that is not copied', () => {
  const loaded = modulesLoadedFrom(['worker/index.ts'])
  expect(loaded.some((file) => file.startsWith('domain/'))).toBe(true)
  expect(copiedPaths()).not.toContain('app')
})
