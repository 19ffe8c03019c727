/**
 * The Prometheus metrics both processes record (prom-client), in one registry per process. Fly
 * scrapes each machine's /metrics (platform/metrics-server.server.ts) and sums across machines,
 * so what is counted here is what this process did: requests it answered, tasks it ran, provider
 * calls it made. Figures that describe the shared database are read at scrape time instead
 * (server/database-metrics.ts).
 *
 * Labels stay bounded: route patterns, never URLs; kinds, providers and outcomes, never ids.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

export type TaskOutcome = 'completed' | 'failed' | 'refused'

// Generations take seconds to minutes (video); requests milliseconds.
const taskBuckets = [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200]
const requestBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

function createMetrics() {
  const registry = new Registry()
  const registers = [registry]
  return {
    registry,
    httpRequestDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: requestBuckets,
      registers,
    }),
    tasksSubmitted: new Counter({
      name: 'pawtrait_tasks_submitted_total',
      help: 'Generation tasks accepted (paid and queued) by this web process',
      labelNames: ['kind'] as const,
      registers,
    }),
    tasksFinished: new Counter({
      name: 'pawtrait_tasks_finished_total',
      help: 'Generation tasks this worker finished, by outcome (completed, failed, refused)',
      labelNames: ['kind', 'provider', 'outcome'] as const,
      registers,
    }),
    taskQueueWait: new Histogram({
      name: 'pawtrait_task_queue_wait_seconds',
      help: 'Time from submission to the first attempt starting',
      labelNames: ['kind', 'provider'] as const,
      buckets: taskBuckets,
      registers,
    }),
    taskDuration: new Histogram({
      name: 'pawtrait_task_duration_seconds',
      help: 'Run time of a generation task, from its first attempt starting to its end (retries included)',
      labelNames: ['kind', 'provider'] as const,
      buckets: taskBuckets,
      registers,
    }),
    titlesSet: new Histogram({
      name: 'pawtrait_title_set_seconds',
      help: 'Setting a name on a portrait version (decode, draw, encode, store), by outcome (decision 0043)',
      labelNames: ['outcome'] as const,
      buckets: [0.05, 0.1, 0.2, 0.3, 0.5, 1, 2, 5],
      registers,
    }),
    providerRequests: new Counter({
      name: 'pawtrait_provider_requests_total',
      help: 'HTTP requests to AI providers, by HTTP status, or timeout / network / aborted',
      labelNames: ['provider', 'status'] as const,
      registers,
    }),
    providerFailovers: new Counter({
      name: 'pawtrait_provider_failovers_total',
      help: 'Image versions this worker moved to the next provider, by from, to and reason (a ProviderFailure code or breaker_open)',
      labelNames: ['from', 'to', 'reason'] as const,
      registers,
    }),
    liveUpdateStreams: new Gauge({
      name: 'pawtrait_live_update_streams',
      help: 'Live task update streams (Server-Sent Events) open on this web process',
      registers,
    }),
    liveUpdateEvents: new Counter({
      name: 'pawtrait_live_update_events_total',
      help: 'Task changes written to live update streams',
      registers,
    }),
    liveUpdateReconnects: new Counter({
      name: 'pawtrait_live_update_listener_reconnects_total',
      help: 'Reconnections of the web process LISTEN connection for task changes',
      registers,
    }),
    sessionCacheLookups: new Counter({
      name: 'pawtrait_session_cache_lookups_total',
      help: 'Session lookups of the hot reads (task status), answered from this web process memory (hit) or the database (miss)',
      labelNames: ['result'] as const,
      registers,
    }),
    databaseUnreachable: new Gauge({
      name: 'pawtrait_database_unreachable',
      help: '1 while this process cannot reach PostgreSQL (an outage, platform/database-outage.server.ts), else 0',
      registers,
    }),
    databaseOutages: new Counter({
      name: 'pawtrait_database_outages_total',
      help: 'Database outages this process noticed (each logged once)',
      registers,
    }),
    databasePoolExhausted: new Counter({
      name: 'pawtrait_database_pool_exhausted_total',
      help: "Callers this process's database pool gave no connection because all stayed busy (not an outage)",
      registers,
    }),
    cspViolations: new Counter({
      name: 'pawtrait_csp_violations_total',
      help: 'Content-Security-Policy violations browsers reported, by directive and disposition',
      labelNames: ['directive', 'disposition'] as const,
      registers,
    }),
    rateLimited: new Counter({
      name: 'pawtrait_rate_limited_total',
      help: 'Requests this web process refused with 429 because a limit was reached, by limit name',
      labelNames: ['limit'] as const,
      registers,
    }),
    photoCheckVisionSkipped: new Counter({
      name: 'pawtrait_photo_check_vision_skipped_total',
      help: 'Photo checks that went on with the local checks alone, by why the vision call was not made or failed',
      labelNames: ['reason'] as const,
      registers,
    }),
    moderationSkipped: new Counter({
      name: 'pawtrait_moderation_skipped_total',
      help: 'Inputs that went on unmoderated because the moderation call failed, by why',
      labelNames: ['reason'] as const,
      registers,
    }),
    moderationBusy: new Counter({
      name: 'pawtrait_moderation_busy_total',
      help: 'Submissions answered 503 because the moderation endpoint answered 429 (our own volume), not let through unmoderated',
      registers,
    }),
    cardCheckouts: new Counter({
      name: 'pawtrait_card_checkouts_total',
      help: 'Stripe Checkout Sessions asked for, by outcome (created, unavailable: Stripe failed or could not be reached)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    stripeWebhooks: new Counter({
      name: 'pawtrait_stripe_webhooks_total',
      help: 'Stripe webhook deliveries, by event type (other for types not handled) and outcome',
      labelNames: ['type', 'outcome'] as const,
      registers,
    }),
    printOrders: new Counter({
      name: 'pawtrait_print_orders_total',
      help: 'Print orders that reached a status in this process (submitted, at_lab, in_production, shipped, complete, cancelled, refused, submission_failed)',
      labelNames: ['status'] as const,
      registers,
    }),
    buildInfo: new Gauge({
      name: 'pawtrait_build_info',
      help: 'Always 1; the running build version is its label',
      labelNames: ['version'] as const,
      registers,
    }),
  }
}

export type Metrics = ReturnType<typeof createMetrics>

let processMetrics: Metrics | undefined

/** This process's metrics; Node's default process metrics are added on first use. */
export function getMetrics(): Metrics {
  if (!processMetrics) {
    processMetrics = createMetrics()
    collectDefaultMetrics({ register: processMetrics.registry })
  }
  return processMetrics
}

/** Provider names in labels: lower case, and a fixed fallback for anything odd. */
export function providerLabel(name: string): string {
  const label = name.toLowerCase()
  return /^[a-z0-9_-]{1,32}$/.test(label) ? label : 'other'
}
