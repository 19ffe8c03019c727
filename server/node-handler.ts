import type { IncomingMessage, ServerResponse } from 'node:http'

/**
 * A connect-style layer on Node's own request and response: Express runs it, and so does the
 * listener before Express for the /api reads that skip it (server/app.ts).
 */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void
