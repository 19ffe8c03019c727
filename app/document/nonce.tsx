import { createContext, type ReactNode, useContext } from 'react'

/**
 * The request's Content-Security-Policy nonce (server/security-headers.ts), handed from
 * entry.server to the document so that Remix's inline scripts carry it. Only the server render has
 * one; browsers hide the attribute, so the client's empty value hydrates without a mismatch.
 */
const NonceContext = createContext('')

export function NonceProvider({ nonce, children }: { nonce: string; children: ReactNode }) {
  return <NonceContext.Provider value={nonce}>{children}</NonceContext.Provider>
}

export const useNonce = () => useContext(NonceContext)
