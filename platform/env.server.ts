import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { z } from 'zod'

export const emptyToUndefined = (value: unknown) => (value === '' ? undefined : value)
export const optionalString = z.preprocess(emptyToUndefined, z.string().optional())
const optionalUrl = z.preprocess(emptyToUndefined, z.string().url().optional())
const optionalEmail = z.preprocess(emptyToUndefined, z.string().email().toLowerCase().optional())
export const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback)
const onOff = (fallback: 'on' | 'off') =>
  z.preprocess(
    (value) => (typeof value === 'string' ? value.toLowerCase() : value),
    z.enum(['on', 'off']).default(fallback),
  )

/**
 * The variables every process reads (web, worker, scripts); README documents each one. The
 * worker's own (providers and their keys, lanes, chain APIs) are in worker/env.ts: the web starts
 * without them.
 */
export const sharedFields = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  DATA_DIR: z.string().min(1).default('./.data'),
  DATABASE_URL: optionalUrl,
  SESSION_SECRET: optionalString,
  PUBLIC_URL: optionalUrl,
  ADMIN_EMAIL: optionalEmail,
  ADMIN_PASSWORD: z.preprocess(emptyToUndefined, z.string().min(6).optional()),
  OWNER_EMAIL: optionalEmail,
  // Generation slots a worker runs; the web shows them. Unset: 2 with the local (CPU-bound)
  // providers, 16 images / 8 videos with a remote provider.
  IMAGE_CONCURRENCY: z.preprocess(emptyToUndefined, z.coerce.number().int().positive().optional()),
  VIDEO_CONCURRENCY: z.preprocess(emptyToUndefined, z.coerce.number().int().positive().optional()),
  MAX_ACTIVE_TASKS_PER_USER: positiveInt(5),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  // Prometheus /metrics (with /healthz and /readyz) on a port of its own; 0 turns it off.
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9091),
  // Shown on the status page: set at image build time, else Fly's image reference.
  BUILD_VERSION: optionalString,
  FLY_IMAGE_REF: optionalString,
  SEED_DEMO_GALLERY: onOff('on'),
  // Unset: raw analytics events are kept for ever; N: those older than N days go once rolled up.
  ANALYTICS_RAW_RETENTION_DAYS: z.preprocess(emptyToUndefined, z.coerce.number().int().positive().optional()),
  // 'fly': the app runs behind Fly's proxy, so its Fly-Client-IP header names the client.
  TRUST_PROXY: z.enum(['none', 'fly']).default('none'),
  // 'on': the Content-Security-Policy is only reported, not enforced (a safe roll-out).
  CSP_REPORT_ONLY: onOff('off'),
  // New kinds of CSP violation stored an hour, across web processes (decision 0025).
  CSP_REPORTS_MAX_PER_HOUR: positiveInt(1000),

  EMAIL_VERIFICATION: onOff('off'),
  REGISTRATIONS_PER_IP_PER_HOUR: positiveInt(5),
  REGISTRATIONS_PER_IPV6_48_PER_HOUR: positiveInt(20),
  SMTP_URL: optionalUrl,
  MAIL_FROM: z.string().default('Pawtrait <no-reply@pawtrait.local>'),
  CONTACT_EMAIL: z.string().default('support@pawtrait.local'),

  GOOGLE_CLIENT_ID: optionalString,
  GOOGLE_CLIENT_SECRET: optionalString,
  GOOGLE_AUTHORIZATION_URL: z.string().url().default('https://accounts.google.com/o/oauth2/v2/auth'),
  GOOGLE_TOKEN_URL: z.string().url().default('https://oauth2.googleapis.com/token'),
  GOOGLE_USERINFO_URL: z.string().url().default('https://www.googleapis.com/oauth2/v3/userinfo'),

  STORAGE_DRIVER: z.enum(['local', 's3']).default('local'),
  S3_BUCKET: optionalString,
  S3_ENDPOINT: optionalUrl,
  S3_REGION: z.string().default('auto'),
  S3_FORCE_PATH_STYLE: z.preprocess(emptyToUndefined, z.enum(['true', 'false']).optional()),
  AWS_ACCESS_KEY_ID: optionalString,
  AWS_SECRET_ACCESS_KEY: optionalString,

  // Which providers the worker runs: the web names them on the generator pages and sizes the slots.
  // 'instant' hands the photo straight back: for tests and benchmarks only (the worker refuses it in production).
  IMAGE_PROVIDER: z.enum(['local', 'openai', 'gemini', 'instant']).default('local'),
  // The ordered list a version fails over along (docs/decisions/0033); IMAGE_PROVIDER is its first
  // (an IMAGE_PROVIDER alone is a list of one).
  IMAGE_PROVIDERS: z.preprocess(
    (value) => (typeof value === 'string' ? value.split(',').map((name) => name.trim()) : value),
    z
      .array(z.enum(['local', 'openai', 'gemini', 'instant']))
      .min(1)
      .refine((names) => new Set(names).size === names.length, 'names a provider twice')
      .default(['local']),
  ),
  VIDEO_PROVIDER: z.enum(['local', 'veo']).default('local'),
  // The keys are shared because the web checks uploaded photos with the image provider's vision
  // model before charging (domain/photo-check/); the worker generates with them.
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: z.string().url().default('https://api.openai.com/v1'),
  OPENAI_VISION_MODEL: z.string().default('gpt-6-luna'),
  GEMINI_API_KEY: optionalString,
  GEMINI_BASE_URL: z.string().url().default('https://generativelanguage.googleapis.com'),
  GEMINI_VISION_MODEL: z.string().default('gemini-3.5-flash-lite'),
  // One vision call of the photo check; past it the check goes on with the local checks alone.
  PHOTO_CHECK_TIMEOUT_MS: positiveInt(8_000),
  // One call to OpenAI's moderation endpoint (with OPENAI_API_KEY); past it the input goes on unmoderated.
  MODERATION_TIMEOUT_MS: positiveInt(5_000),

  // Print orders (issue 39, decision 0042): without a key the pages say prints are not available.
  PRINT_LAB: z.enum(['prodigi']).default('prodigi'),
  PRODIGI_API_KEY: optionalString,
  // The sandbox by default (orders move through their stages, nothing is made or charged); live is
  // a deliberate setting: https://api.prodigi.com/v4.0
  PRODIGI_API_URL: z
    .string()
    .url()
    .transform((url) => url.replace(/\/+$/, ''))
    .default('https://api.sandbox.prodigi.com/v4.0'),
  // The last segment of the callback URL the lab posts to (no signature is documented).
  PRINT_CALLBACK_SECRET: z.preprocess(emptyToUndefined, z.string().min(16).optional()),
  // One call to the lab; a timed-out order submission is retried with the same idempotency key.
  PRINT_LAB_TIMEOUT_MS: positiveInt(20_000),
  // US dollars per unit of the currencies the lab may quote in (credits are priced in USD).
  PRINT_USD_RATES: z
    .string()
    .default('USD=1,GBP=1.27,EUR=1.08')
    .transform((text, ctx) => {
      const rates: Record<string, number> = {}
      for (const pair of text.split(',')) {
        const [code, value] = pair.split('=').map((part) => part.trim())
        const rate = Number(value)
        if (!/^[A-Z]{3}$/.test(code ?? '') || !(rate > 0)) {
          ctx.addIssue({ code: 'custom', message: 'must be CODE=rate pairs, e.g. USD=1,GBP=1.27' })
          return z.NEVER
        }
        rates[code!] = rate
      }
      return rates
    }),

  USDT_TRC20_ADDRESS: z.string().default(''),
  USDT_ERC20_ADDRESS: z.string().default(''),
  PAYPAL_ME_URL: z.string().default(''),
  // On-chain checks of USDT payment proofs (worker/chains/); approval stays manual unless turned on.
  PAYMENT_AUTO_APPROVE: onOff('off'),
  USDT_TRC20_CONTRACT: z.string().default('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'),
  USDT_ERC20_CONTRACT: z.string().default('0xdAC17F958D2ee523a2206206994597C13D831ec7'),
  ETHEREUM_CONFIRMATIONS: positiveInt(12),
  // Card payments through Stripe Checkout (decision 0041): offered when a secret key is set.
  STRIPE_SECRET_KEY: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^(sk|rk)_(test|live)_\w+$/, 'must be a Stripe secret key (sk_test_… or sk_live_…)')
      .optional(),
  ),
  STRIPE_WEBHOOK_SECRET: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^whsec_\S+$/, "must be the webhook endpoint's signing secret (whsec_…)")
      .optional(),
  ),
  // The official client's host, port and protocol come from it; its paths are fixed (/v1/…).
  STRIPE_API_URL: z
    .string()
    .url()
    .refine((url) => new URL(url).pathname === '/', 'must be an origin without a path (e.g. https://api.stripe.com)')
    .default('https://api.stripe.com'),
  STRIPE_CURRENCY: z.preprocess(
    (value) => (typeof value === 'string' && value !== '' ? value.toLowerCase() : undefined),
    z
      .string()
      .regex(/^[a-z]{3}$/, 'must be a three-letter currency code (e.g. usd)')
      .default('usd'),
  ),
  // One call to Stripe (one retry at most): past it the purchase answers 503.
  STRIPE_TIMEOUT_MS: positiveInt(5_000),
  SURPRISE_URL: optionalUrl,
  SOCIAL_LINKS: z.string().default(''),
  // Live task updates (Server-Sent Events): a comment this often keeps proxies (Fly: 60 s idle) open.
  LIVE_UPDATES_HEARTBEAT_MS: positiveInt(15_000),
  LIVE_UPDATES_MAX_STREAMS_PER_USER: positiveInt(6),
  LIVE_UPDATES_MAX_STREAM_AGE_MS: positiveInt(600_000),
  // Each open stream's session is checked again this often (at most a minute: decision 0027).
  LIVE_UPDATES_SESSION_CHECK_MS: z.coerce.number().int().positive().max(60_000).default(60_000),
  // A web process remembers a live session this long (0: off); revocations reach it at once (decision 0045).
  SESSION_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(30_000),
})

type SharedVariables = z.infer<typeof sharedFields>

/** The rules across shared variables; a process with variables of its own adds its rules after these. */
export function checkSharedRules(value: SharedVariables, ctx: z.RefinementCtx) {
  if (value.NODE_ENV === 'production' && !value.SESSION_SECRET) {
    ctx.addIssue({ code: 'custom', path: ['SESSION_SECRET'], message: 'is required in production' })
  }
  // Links in emails, robots.txt, the sitemap and the OAuth callback are built from it, never from
  // a request's Host (decision 0025).
  if (value.NODE_ENV === 'production' && !value.PUBLIC_URL) {
    ctx.addIssue({
      code: 'custom',
      path: ['PUBLIC_URL'],
      message: "is required in production (the site's address, e.g. https://pawtrait.fly.dev)",
    })
  }
  // Without it no payment could be confirmed by webhook, nor a refund or dispute heard of.
  if (value.STRIPE_SECRET_KEY && !value.STRIPE_WEBHOOK_SECRET) {
    ctx.addIssue({
      code: 'custom',
      path: ['STRIPE_WEBHOOK_SECRET'],
      message: "is required with STRIPE_SECRET_KEY (the webhook endpoint's signing secret, whsec_…)",
    })
  }
  if (value.PRODIGI_API_KEY && !value.PRINT_CALLBACK_SECRET) {
    ctx.addIssue({
      code: 'custom',
      path: ['PRINT_CALLBACK_SECRET'],
      message: 'is required with PRODIGI_API_KEY (16 characters or more: the lab posts order changes to it)',
    })
  }
  if (value.STORAGE_DRIVER === 's3' && !value.S3_BUCKET) {
    ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'is required when STORAGE_DRIVER=s3' })
  }
}

/** Parsed variables with their derived defaults filled in. */
export type Completed<T extends SharedVariables> = T & {
  SESSION_SECRET: string
  DATA_DIR: string
  IMAGE_CONCURRENCY: number
  VIDEO_CONCURRENCY: number
}

export type Env = Completed<SharedVariables>

export class EnvError extends Error {}

/** Tigris on Fly sets these names; accept them as aliases of ours. */
type RawEnv = Record<string, string | undefined>

function withAliases(source: RawEnv): RawEnv {
  const providers = source.IMAGE_PROVIDERS || source.IMAGE_PROVIDER
  return {
    ...source,
    IMAGE_PROVIDERS: providers,
    IMAGE_PROVIDER: providers?.split(',')[0].trim(),
    S3_BUCKET: source.S3_BUCKET || source.BUCKET_NAME,
    S3_ENDPOINT: source.S3_ENDPOINT || source.AWS_ENDPOINT_URL_S3,
    S3_REGION: source.S3_REGION || source.AWS_REGION,
  }
}

/** Validates `source` against a process's schema (the shared fields, and maybe its own). */
export function parseWith<T extends SharedVariables>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, source: RawEnv) {
  const result = schema.safeParse(withAliases(source))
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`)
    throw new EnvError(`Invalid environment configuration:\n${lines.join('\n')}`)
  }
  const dataDir = path.resolve(result.data.DATA_DIR)
  return {
    ...result.data,
    DATA_DIR: dataDir,
    // Waiting on a remote provider costs no CPU, so a worker keeps many more of those calls open.
    IMAGE_CONCURRENCY: result.data.IMAGE_CONCURRENCY ?? (result.data.IMAGE_PROVIDER === 'local' ? 2 : 16),
    VIDEO_CONCURRENCY: result.data.VIDEO_CONCURRENCY ?? (result.data.VIDEO_PROVIDER === 'local' ? 2 : 8),
    SESSION_SECRET: result.data.SESSION_SECRET ?? localSessionSecret(dataDir),
  } as Completed<T>
}

const schema = sharedFields.superRefine(checkSharedRules)

/** The shared variables, validated: all the web and the scripts read. */
export function parseEnv(source: RawEnv = process.env): Env {
  return parseWith(schema, source)
}

/** Outside production a secret is generated once and kept under DATA_DIR, so sessions survive restarts. */
function localSessionSecret(dataDir: string) {
  const file = path.join(dataDir, 'session-secret')
  try {
    return fs.readFileSync(file, 'utf8').trim()
  } catch {
    fs.mkdirSync(dataDir, { recursive: true })
    const secret = randomBytes(32).toString('hex')
    fs.writeFileSync(file, secret, { mode: 0o600 })
    return secret
  }
}

let cached: Env | undefined

/** The validated environment, parsed on first use. */
export function getEnv(): Env {
  cached ??= parseEnv()
  return cached
}
