import { hash, verify } from '@node-rs/argon2'

// argon2id (the library's default algorithm) with OWASP's recommended minimum cost.
const options = { memoryCost: 19_456, timeCost: 2, parallelism: 1 }

export function hashPassword(password: string) {
  return hash(password, options)
}

// A hash of a throwaway password, verified against when the account does not exist, so a login
// for an unknown email costs the same time as one for a known email.
const decoyHash = hash('decoy-password-for-timing', options)

export async function verifyPassword(passwordHash: string | null | undefined, password: string) {
  if (!passwordHash) {
    await verify(await decoyHash, password).catch(() => false)
    return false
  }
  return verify(passwordHash, password).catch(() => false)
}
