import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * What the web knows about the request being handled (its id, and the route pattern that served
 * it), and the worker about the job it runs: readable anywhere below without passing it along, so
 * log lines carry the id and enqueueJob can hand it on to the job.
 */
export interface RequestContext {
  requestId: string
  /** The route pattern that answered (`/api/async-image/task/:id`), for the request metric. */
  route?: string
  routeDepth?: number
}

const storage = new AsyncLocalStorage<RequestContext>()

export function runWithRequestContext<T>(context: RequestContext, run: () => T): T {
  return storage.run(context, run)
}

export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore()
}

const flyRequestId = /^[A-Za-z0-9_.:-]{1,128}$/

/** Fly's `fly-request-id` when it looks like one, else a fresh id. */
export function requestIdFrom(header: string | undefined | null, generate: () => string): string {
  return header && flyRequestId.test(header) ? header : generate()
}
