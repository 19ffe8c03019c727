import type { ColumnType, Generated, Selectable } from 'kysely'

/** The typed shape of the database, matching migrations/. Columns keep their SQL names. */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>
type Timestamp = ColumnType<Date, Date | string, Date | string>
type Json<T> = ColumnType<T, string | T, string | T>

export type Role = 'user' | 'admin' | 'superadmin'
export type TaskKind = 'image' | 'video'
export type TaskStatus = 'queued' | 'processing' | 'completed' | 'failed'
export type TaskSource = 'generate' | 'template' | 'upscale'
export type LedgerType = 'earn' | 'spend' | 'purchase' | 'adjustment'
export type PaymentMethod = 'paypal_me' | 'usdt_trc20' | 'usdt_erc20' | 'card'
export type CardCheckoutStatus = 'open' | 'processing' | 'paid' | 'failed' | 'expired'
export type ProofStatus = 'pending' | 'approved' | 'rejected'

export interface UsersTable {
  id: Generated<string>
  email: string
  name: string
  password_hash: string | null
  role: Generated<Role>
  credits: Generated<number>
  profile_picture: string | null
  google_id: string | null
  email_verified: Generated<boolean>
  is_banned: Generated<boolean>
  created_at: CreatedAt
  last_login_at: Timestamp | null
  /** Emails when long work ends (migration 0023); off by the profile switch or the unsubscribe link. */
  task_emails: Generated<boolean>
  /** The sharer whose share page the user registered through (migration 0042). */
  referrer_id: Generated<string | null>
}

export interface SessionsTable {
  token_hash: string
  user_id: string
  created_at: CreatedAt
  expires_at: Timestamp
  /** How the session began (migration 0043); null for sessions from before. */
  signed_in_with: SignInMethod | null
}

export type SignInMethod = 'password' | 'google'

export interface VerificationCodesTable {
  id: Generated<string>
  email: string
  purpose: 'register' | 'reset'
  code_hash: string
  attempts: Generated<number>
  expires_at: Timestamp
  used_at: Timestamp | null
  created_at: CreatedAt
}

export interface RateLimitsTable {
  key: string
  hits: number
  window_ends_at: Timestamp
  /** The limit's name and ceiling (migration 0031), for the status page. */
  name: string | null
  max_hits: number | null
}

/** Failed password sign-ins per account from every address (migration 0031). */
export interface LoginFailuresTable {
  account: string
  failures: number
  last_failure_at: Timestamp
}

/** Where each user proved who they are, by client limit key (migration 0031). */
export interface SignInAddressesTable {
  user_id: string
  client_key: string
  last_seen_at: ColumnType<Date, Date | string | undefined, Date | string>
}

export interface SystemConfigTable {
  id: Generated<boolean>
  new_user_bonus_credits: number
  image_generation_credit_cost: number
  video_generation_credit_cost: number
  fast_video_generation_credit_cost: number
  /** Free likeness fixes each paid run includes (migration 0035). */
  free_likeness_fixes: Generated<number>
  /** The price of "Make it bigger" (migration 0041). */
  upscale_cost: Generated<number>
  /** HD's price a version; NULL: twice the image cost (migration 2026-11-26-0040). */
  hd_image_cost: Generated<number | null>
  /** Credits a sharer earns when a visitor they referred first buys (migration 0042). */
  referral_credits: Generated<number>
  referral_max_per_month: Generated<number>
  /** A print's price over the lab's cost (migration 2026-11-28-0050); numeric, read as text. */
  print_markup: ColumnType<string, string | number | undefined, string | number>
  /** What each pet beyond the first adds to a version's price (migration 2026-11-28-0055). */
  extra_pet_cost: Generated<number>
  updated_at: Generated<Date>
}

export interface StylesTable {
  value: string
  label: string
  kind: 'gallery' | 'generator'
  position: Generated<number>
  created_at: CreatedAt
}

export interface GenerationTasksTable {
  id: Generated<string>
  user_id: string
  kind: TaskKind
  source: Generated<TaskSource>
  status: Generated<TaskStatus>
  progress: Generated<number>
  params: Json<Record<string, unknown>>
  input_keys: Generated<string[]>
  result_key: string | null
  error: string | null
  credit_cost: number
  provider: string
  attempts: Generated<number>
  created_at: CreatedAt
  started_at: Timestamp | null
  finished_at: Timestamp | null
  expires_at: Timestamp | null
  heartbeat_at: Timestamp | null
  /** Time spent waiting for room at the provider, in ms (migration 0013). */
  waited_ms: Generated<number>
  /** The Veo operation started for this task, so a retry resumes it (migration 0013). */
  provider_operation: string | null
  /** Image calls of this task that timed out (migration 0013). */
  timed_out_calls: Generated<number>
  /** Bumped (from one sequence) by a trigger on every change the user sees: the live stream's event id (migration 0023). */
  update_seq: Generated<number>
  updated_at: Generated<Timestamp>
  /** When the end-of-work email was queued: at most once a task (migration 0023). */
  end_email_queued_at: Timestamp | null
  /** The task this re-roll or likeness fix was made from (migration 0035). */
  parent_task_id: string | null
  /** The paid run this task's family started with; null for a paid run itself (migration 0035). */
  family_root_id: string | null
  /** How many versions the run asked for, 1 to 4 (migration 0034). */
  variants: Generated<number>
  /** The version that stands for the task; its key is result_key (migration 0034). */
  favourite_index: Generated<number>
}

/** A paid run's free likeness fixes, made when it is first re-rolled or fixed (migration 0035). */
export interface TaskFamiliesTable {
  root_task_id: string
  user_id: string
  free_fixes_included: number
  free_fixes_used: Generated<number>
  created_at: CreatedAt
}

/** What a user said was off in a portrait, for analytics (migration 0035). */
export interface LikenessFixReportsTable {
  id: Generated<string>
  /** The task whose likeness was off, and the fix made for it. */
  task_id: string
  fixed_task_id: string
  user_id: string | null
  template_id: string | null
  provider: string
  reasons: string[]
  note: Generated<string>
  created_at: CreatedAt
}

/** One delivered version of a task (migration 0034). */
export interface TaskVersionsTable {
  task_id: string
  version_index: number
  key: string
  width: number | null
  height: number | null
  provider: string | null
  model: string | null
  /** The version's title and its titled copy's file, all four or none (migration 2026-11-28-0055). */
  title: Generated<string | null>
  title_style: Generated<string | null>
  title_font: Generated<string | null>
  titled_key: Generated<string | null>
  created_at: CreatedAt
}

export interface PaymentProofsTable {
  id: Generated<string>
  /** Null once the account is deleted: the proof stays, anonymised, for accounting (migration 0032). */
  user_id: string | null
  payment_method: PaymentMethod
  transaction_id: string
  credit_amount: number
  amount_cents: number
  note: Generated<string>
  screenshot_key: string | null
  status: Generated<ProofStatus>
  reviewer_id: string | null
  review_reason: string | null
  reviewed_at: Timestamp | null
  created_at: CreatedAt
}

export interface CreditTransactionsTable {
  id: Generated<string>
  user_id: string
  type: LedgerType
  amount: number
  description: string
  task_id: string | null
  payment_proof_id: string | null
  /** Which version of the task a refund is for: refunds are once per (task, version) (migration 0034). */
  version_index: Generated<number | null>
  /** NULL for a version's full refund; 'hd_shortfall' for HD's price difference (migration 2026-11-26-0040). */
  refund_kind: Generated<'hd_shortfall' | null>
  /** The print order a spend or refund is for: one of each per order (migration 2026-11-28-0050). */
  print_order_id: Generated<string | null>
  created_at: CreatedAt
}

export type PrintKind = 'canvas' | 'framed' | 'poster'
export type PrintOrderStatus =
  'submitted' | 'at_lab' | 'in_production' | 'shipped' | 'complete' | 'cancelled' | 'refused' | 'submission_failed'

/** The curated print catalogue a superadmin edits, one lab SKU a row (migration 2026-11-28-0050). */
export interface PrintProductsTable {
  sku: string
  kind: PrintKind
  label: string
  width_in: number
  height_in: number
  attribute: 'wrap' | 'color' | null
  choices: Generated<string[]>
  position: Generated<number>
  offered: Generated<boolean>
  updated_at: Generated<Date>
}

/** The lab's own product data (GET /products/{sku}), cached; null when the lab does not know the SKU. */
export interface PrintLabProductsTable {
  sku: string
  product: Json<unknown> | null
  fetched_at: Generated<Date>
}

/** The print lab's last answer, for /system-status. */
export interface PrintLabStateTable {
  lab: string
  last_status: number | null
  last_outcome: string | null
  last_at: Generated<Date>
  last_ok_at: Date | null
}

export interface PrintQuotesTable {
  id: Generated<string>
  user_id: string
  task_id: string
  version_index: number
  sku: string
  attributes: Json<Record<string, string>>
  copies: number
  country_code: string
  shipping_method: string
  crop_x: number
  crop_y: number
  print_width: number
  print_height: number
  items_cost: string
  shipping_cost: string
  currency: string
  credits: number
  delivery: string
  mockup_key: string | null
  created_at: CreatedAt
  expires_at: Timestamp
}

export interface PrintOrdersTable {
  id: Generated<string>
  /** Null once the account is deleted: the order stays for accounting, its recipient removed. */
  user_id: string | null
  task_id: string | null
  version_index: number
  product_label: string
  sku: string
  attributes: Json<Record<string, string>>
  copies: number
  shipping_method: string
  crop_x: number
  crop_y: number
  print_width: number
  print_height: number
  credits: number
  items_cost: string
  shipping_cost: string
  currency: string
  delivery: string
  country_code: string
  recipient: Json<Record<string, unknown>> | null
  status: Generated<PrintOrderStatus>
  lab_order_id: string | null
  lab_stage: string | null
  lab_issues: ColumnType<{ errorCode: string; description: string }[], string | undefined, string>
  shipments: ColumnType<PrintShipment[], string | undefined, string>
  source_key: string | null
  mockup_key: string | null
  print_file_key: string | null
  print_file_md5: string | null
  problem: string | null
  last_error: string | null
  refunded_at: Timestamp | null
  shipped_email_at: Timestamp | null
  sent_at: Timestamp | null
  synced_at: Timestamp | null
  created_at: CreatedAt
  updated_at: Generated<Date>
}

/** A lab shipment as an order keeps it. */
export interface PrintShipment {
  status: string
  carrier: string | null
  trackingNumber: string | null
  trackingUrl: string | null
  dispatchDate: string | null
}

export interface TemplatesTable {
  id: Generated<string>
  name: Generated<string>
  style: string
  prompt: Generated<string>
  template_prompt: Generated<string>
  other_params: Json<Record<string, string>>
  image_key: string
  thumbnail_key: string
  /** 960 px wide WebP for high-density screens (migration 0004). */
  display_key: string
  width: number
  height: number
  created_by: string | null
  created_at: CreatedAt
}

export interface AnalyticsEventsTable {
  id: Generated<string>
  type: string
  user_id: string | null
  path: string | null
  country: string | null
  city: string | null
  details: Json<Record<string, unknown>>
  created_at: CreatedAt
}

/** Days are UTC calendar days, read and written as YYYY-MM-DD text. */
export interface AnalyticsRollupDaysTable {
  day: string
  event_count: number
  max_event_id: number | null
  rolled_up_at: Generated<Timestamp>
}

export interface AnalyticsDailyCountsTable {
  day: string
  type: string
  count: number
}

export interface AnalyticsDailyPaymentMethodsTable {
  day: string
  method: string
  count: number
}

export interface AnalyticsDailyLocationsTable {
  day: string
  country: string
  city: string
  count: number
}

export interface AnalyticsRollupStateTable {
  singleton: Generated<boolean>
  checked_through_id: number
  raw_events_since: string | null
}

export interface ProviderChecksTable {
  provider: string
  model: string
  ok: boolean
  detail: string
  checked_at: Timestamp
}

export type VerificationStatus = 'confirmed' | 'unconfirmed' | 'mismatch' | 'not_found' | 'unavailable'
export type ChainNetwork = 'tron' | 'ethereum'

export interface PaymentVerificationsTable {
  proof_id: string
  status: VerificationStatus
  network: ChainNetwork
  /** numeric: pg answers it as a string, exact to the 6 decimals USDT has. */
  amount_usd: string | null
  to_address: string | null
  confirmations: number | null
  detail: string
  checked_at: Timestamp
}

export interface ProviderRequestsTable {
  id: Generated<number>
  provider: string
  sent_at: Generated<Timestamp>
}

export interface WorkerProcessesTable {
  /** `hostname:pid` (on Fly the hostname is the machine id). */
  id: string
  hostname: string
  pid: number
  version: string
  concurrency: number
  started_at: CreatedAt
  seen_at: Timestamp
}

/** One kind of violation: the same directive, page, blocked origin and disposition share a row. */
export interface CspReportsTable {
  id: Generated<string>
  /** When this kind was first reported. */
  received_at: CreatedAt
  /** The path of the page the violation happened on, and the origin of what it tried to load (or `inline`, `eval`). */
  page: string
  blocked_url: string
  directive: string
  /** `enforce`, or `report` under CSP_REPORT_ONLY=on. */
  disposition: string
  /** Violations of this kind reported since it was first. */
  count: Generated<number>
  last_seen_at: Generated<Date>
  /** The last time a violation of this kind was logged (one line an hour at most). */
  logged_at: Generated<Date>
}

/** A user's saved pet (migration 0037); its traits go on the tasks made with it. */
export interface PetsTable {
  id: Generated<string>
  user_id: string
  name: string
  species: string
  breed: Generated<string>
  colours: Generated<string>
  markings: Generated<string>
  created_at: CreatedAt
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>
}

/** A saved pet's reference photo, stored under `pets/<pet id>/` (migration 0037). */
export interface PetPhotosTable {
  id: Generated<string>
  pet_id: string
  key: string
  width: number
  height: number
  /** The order the generator sends them in, from 0. */
  position: number
  created_at: CreatedAt
}

export interface PhotoChecksTable {
  /** Hex SHA-256 of the picture the vision model is shown (the decoded photo at the working size; migration 0045). */
  sha256: string
  provider: string
  model: string
  /** The vision model's structured answer (domain/photo-check/vision-answer.ts). */
  answer: Json<unknown>
  checked_at: CreatedAt
}

/** One version of a user's image on a public page /p/{slug} (migration 0042). */
export interface SharePagesTable {
  slug: string
  user_id: string
  task_id: string
  version_index: number
  listed: Generated<boolean>
  /** The page's own copies: never the /media key (decision 0037). */
  image_key: string
  card_key: string
  created_at: CreatedAt
  /** A second page of the same version, made before one page per version was the rule (migration 0044). */
  duplicate: Generated<boolean>
}

/** A referred user's reward, at most one row each (migration 0042). */
export interface ReferralPayoutsTable {
  referred_user_id: string
  referrer_id: string | null
  amount: number
  created_at: CreatedAt
}

/** A Stripe Checkout Session the app created (migration 2026-11-28-0046, decision 0041). */
export interface CardCheckoutsTable {
  session_id: string
  /** Null once the account is deleted. */
  user_id: string | null
  credit_amount: number
  amount_cents: number
  currency: string
  status: Generated<CardCheckoutStatus>
  payment_intent: string | null
  /** The payment row made when it was paid. */
  payment_proof_id: string | null
  /** Credits that refunds and disputes have covered so far (taken back, or already spent). */
  reversed_credits: Generated<number>
  created_at: CreatedAt
  updated_at: Generated<Date>
}

/** A Stripe event that took credits back, applied once. */
export interface CardPaymentEventsTable {
  event_id: string
  type: string
  applied_at: CreatedAt
}

/** A user's data export, a zip under `exports/` (migration 0043, decision 0038). */
export interface DataExportsTable {
  id: Generated<string>
  user_id: string
  status: Generated<'pending' | 'ready' | 'failed'>
  key: string | null
  size: ColumnType<string | null, number | null, number | null>
  error: string | null
  created_at: CreatedAt
  ready_at: Timestamp | null
  expires_at: Timestamp
}

/** One image provider's circuit breaker, shared by every worker (migration 0038). */
export interface ProviderBreakersTable {
  provider: string
  state: Generated<'closed' | 'open' | 'half_open'>
  /** Retryable failures counted since window_started_at. */
  failures: Generated<number>
  window_started_at: Timestamp | null
  opened_at: Timestamp | null
  /** The ProviderFailure code that last opened it. */
  open_reason: string | null
  /** When the one probe of a half-open breaker was let through. */
  probe_started_at: Timestamp | null
  last_error: string | null
  last_error_at: Timestamp | null
  /** When OWNER_EMAIL was last told it opened for quota or key reasons. */
  owner_told_at: Timestamp | null
  updated_at: Generated<Timestamp>
  /** The task whose failure opened it: never its probe (migration 0045). */
  opened_by_task_id: string | null
}

/** A user's last retryable failure at a provider: the breaker counts users, not calls (migration 0045). */
export interface ProviderBreakerFailuresTable {
  provider: string
  user_id: string
  task_id: string
  failed_at: ColumnType<Date, Date | string | undefined, Date | string>
}

/** The addresses a user was seen at, for the referral self-check (migration 0045). */
export interface SeenAddressesTable {
  user_id: string
  /** clientLimitKey: an IPv4 address or an IPv6 /64. */
  client_key: string
  /** siteLimitKey: an IPv6 address's /48; null for IPv4. */
  site_key: string | null
  last_seen_at: ColumnType<Date, Date | string | undefined, Date | string>
}

/** Referral rewards paid to a sharer in a calendar month; outlives the visitors' accounts (migration 0045). */
export interface ReferralRewardsMonthlyTable {
  referrer_id: string
  /** The month's first day. */
  month: ColumnType<Date, string, string>
  rewards: number
}

/** A task moved to the next provider (migration 0038). */
export interface ProviderFailoversTable {
  id: Generated<string>
  task_id: string | null
  from_provider: string
  to_provider: string
  reason: string
  failed_at: Timestamp
  created_at: CreatedAt
}

export interface Database {
  users: UsersTable
  sessions: SessionsTable
  data_exports: DataExportsTable
  verification_codes: VerificationCodesTable
  rate_limits: RateLimitsTable
  login_failures: LoginFailuresTable
  sign_in_addresses: SignInAddressesTable
  system_config: SystemConfigTable
  styles: StylesTable
  generation_tasks: GenerationTasksTable
  task_versions: TaskVersionsTable
  payment_proofs: PaymentProofsTable
  credit_transactions: CreditTransactionsTable
  templates: TemplatesTable
  analytics_events: AnalyticsEventsTable
  provider_checks: ProviderChecksTable
  analytics_rollup_days: AnalyticsRollupDaysTable
  analytics_daily_counts: AnalyticsDailyCountsTable
  analytics_daily_payment_methods: AnalyticsDailyPaymentMethodsTable
  analytics_daily_locations: AnalyticsDailyLocationsTable
  analytics_rollup_state: AnalyticsRollupStateTable
  payment_verifications: PaymentVerificationsTable
  provider_requests: ProviderRequestsTable
  worker_processes: WorkerProcessesTable
  csp_reports: CspReportsTable
  photo_checks: PhotoChecksTable
  task_families: TaskFamiliesTable
  likeness_fix_reports: LikenessFixReportsTable
  pets: PetsTable
  pet_photos: PetPhotosTable
  share_pages: SharePagesTable
  referral_payouts: ReferralPayoutsTable
  card_checkouts: CardCheckoutsTable
  card_payment_events: CardPaymentEventsTable
  provider_breakers: ProviderBreakersTable
  provider_breaker_failures: ProviderBreakerFailuresTable
  provider_failovers: ProviderFailoversTable
  seen_addresses: SeenAddressesTable
  referral_rewards_monthly: ReferralRewardsMonthlyTable
  print_products: PrintProductsTable
  print_lab_products: PrintLabProductsTable
  print_lab_state: PrintLabStateTable
  print_quotes: PrintQuotesTable
  print_orders: PrintOrdersTable
}

export type User = Selectable<UsersTable>
export type GenerationTask = Selectable<GenerationTasksTable>
export type PaymentProof = Selectable<PaymentProofsTable>
export type PaymentVerification = Selectable<PaymentVerificationsTable>
export type CardCheckout = Selectable<CardCheckoutsTable>
export type Template = Selectable<TemplatesTable>
export type Pet = Selectable<PetsTable>
