import { getMetrics, providerLabel } from '#platform/metrics.server.ts'

/**
 * Counts one request to an AI provider in `pawtrait_provider_requests_total`: by its HTTP status
 * (429s included), or `timeout`, `network` or `aborted` (the worker stopping) when no answer came.
 */
export function countProviderRequest(service: string, status: number | 'timeout' | 'network' | 'aborted') {
  getMetrics().providerRequests.inc({ provider: providerLabel(service), status: String(status) })
}
