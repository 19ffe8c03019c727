import { z } from 'zod'
import type { PaymentMethod } from '#platform/db-schema.ts'
import { transactionIdProblem } from '#domain/payments/chain-transaction-id.ts'

/**
 * Purchase rules shared by the server and the browser (spec sections 5 and 9): credits are bought
 * in steps of 100 at 5 USD per 100, and the price is always computed here, never taken from a client.
 */
export const CREDIT_STEP = 100
export const CENTS_PER_CREDIT_STEP = 500
export const MIN_CREDIT_AMOUNT = 100
/** Far above any real purchase; it keeps typos and abuse out of the review queue. */
export const MAX_CREDIT_AMOUNT = 100_000
export const CREDIT_PACKAGES = [100, 200, 300, 500, 1000] as const

export const paymentMethods = ['paypal_me', 'usdt_trc20', 'usdt_erc20'] as const satisfies readonly PaymentMethod[]

export const paymentMethodLabels: Record<PaymentMethod, string> = {
  paypal_me: 'PayPal',
  usdt_trc20: 'USDT (TRC20)',
  usdt_erc20: 'USDT (ERC20)',
  card: 'Card',
}

export function priceCents(creditAmount: number) {
  return (creditAmount / CREDIT_STEP) * CENTS_PER_CREDIT_STEP
}

export function formatUsd(cents: number) {
  return formatMoney(cents, 'usd')
}

/** An amount in a two-decimal currency's minor units, e.g. `25.00 USD`. */
export function formatMoney(minorUnits: number, currency: string) {
  return `${(minorUnits / 100).toFixed(2)} ${currency.toUpperCase()}`
}

export const creditAmountSchema = z
  .number({ required_error: 'Please choose a credit amount', invalid_type_error: 'Credit amount must be a number' })
  .int('Credit amount must be a whole number')
  .min(MIN_CREDIT_AMOUNT, `Credit amount must be at least ${MIN_CREDIT_AMOUNT}`)
  .max(MAX_CREDIT_AMOUNT, `Credit amount cannot exceed ${MAX_CREDIT_AMOUNT}`)
  .multipleOf(CREDIT_STEP, `Credit amount must be a multiple of ${CREDIT_STEP}`)

const proofFields = {
  paymentMethod: z.enum(paymentMethods, { errorMap: () => ({ message: 'Please choose a payment method' }) }),
  transactionId: z
    .string({ required_error: 'Transaction ID is required' })
    .trim()
    .min(1, 'Transaction ID is required')
    .max(200, 'Transaction ID is too long (at most 200 characters)'),
  paymentNote: z.string().trim().max(1000, 'The note is too long (at most 1000 characters)').default(''),
  screenshot: z.instanceof(File, { message: 'The screenshot must be an image file' }).optional(),
}

/** Refuses a transaction id that cannot exist on the chosen network (a USDT hash of the wrong shape). */
function checkTransactionIdShape(
  { paymentMethod, transactionId }: { paymentMethod: PaymentMethod; transactionId: string },
  ctx: z.RefinementCtx,
) {
  const problem = transactionIdProblem(paymentMethod, transactionId)
  if (problem) ctx.addIssue({ code: 'custom', path: ['transactionId'], message: problem })
}

const customOption = 'custom'
export const creditOptions = [...CREDIT_PACKAGES.map(String), customOption]

const amountChoiceFields = {
  creditOption: z
    .string({ required_error: 'Please choose a credit amount' })
    .refine((value) => creditOptions.includes(value), 'Please choose a credit amount'),
  customCredits: z.number({ invalid_type_error: 'Credit amount must be a number' }).optional(),
}

/** A package, or the custom amount when valid; else null, with the error beside the custom field. */
function chosenCreditAmount(
  { creditOption, customCredits }: { creditOption: string; customCredits?: number },
  ctx: z.RefinementCtx,
): number | null {
  if (creditOption !== customOption) return Number(creditOption)
  const chosen = creditAmountSchema.safeParse(customCredits)
  if (chosen.success) return chosen.data
  ctx.addIssue({ code: 'custom', path: ['customCredits'], message: chosen.error.issues[0].message })
  return null
}

/** The /purchase-credits form: a package or a custom amount, and the payment proof. */
export const purchaseFormSchema = z
  .object({ ...amountChoiceFields, ...proofFields })
  .transform(({ creditOption, customCredits, ...rest }, ctx) => {
    // Checked here rather than in a refinement, which would hide the credit amount's error.
    checkTransactionIdShape(rest, ctx)
    const creditAmount = chosenCreditAmount({ creditOption, customCredits }, ctx)
    return creditAmount === null ? z.NEVER : { ...rest, creditAmount }
  })

/** The value of the purchase form's "Pay by card" button (its `intent`). */
export const CARD_INTENT = 'card'

/** The same form sent by its "Pay by card" button: only the amount counts. */
export const cardPurchaseFormSchema = z
  .object({ intent: z.literal(CARD_INTENT), ...amountChoiceFields })
  .transform((choice, ctx) => {
    const creditAmount = chosenCreditAmount(choice, ctx)
    return creditAmount === null ? z.NEVER : { creditAmount }
  })

/** POST /api/payment/checkout: JSON `{ creditAmount }`. */
export const cardCheckoutRequestSchema = z.object({ creditAmount: creditAmountSchema })

/**
 * POST /api/image/submit-payment-proof (multipart). The spec's payload has no method, so it
 * defaults to USDT TRC20 (the wallet its /api/config/usdt-wallet `address` names). paymentAmount
 * is optional; when sent it must equal the server's price.
 */
export const proofSubmissionSchema = z
  .object({
    creditAmount: creditAmountSchema,
    paymentAmount: z.number({ invalid_type_error: 'Payment amount must be a number' }).optional(),
    ...proofFields,
    paymentMethod: proofFields.paymentMethod.default('usdt_trc20'),
  })
  .superRefine(checkTransactionIdShape)
  .superRefine(({ creditAmount, paymentAmount }, ctx) => {
    const cents = priceCents(creditAmount)
    if (paymentAmount !== undefined && Math.round(paymentAmount * 100) !== cents) {
      ctx.addIssue({
        code: 'custom',
        path: ['paymentAmount'],
        message: `Payment amount must be ${formatUsd(cents)} for ${creditAmount} credits`,
      })
    }
  })

export type ProofInput = Pick<
  z.output<typeof proofSubmissionSchema>,
  'creditAmount' | 'paymentMethod' | 'transactionId' | 'paymentNote' | 'screenshot'
>

const reasonText = z.string().trim().max(500, 'The reason is too long (at most 500 characters)')
const rejectionReason = z
  .string({ required_error: 'Please give a reason for the rejection' })
  .pipe(reasonText.min(1, 'Please give a reason for the rejection'))
const approvalNote = reasonText.optional()

/** POST /api/image/review-payment-proof/{id}: JSON { approved, reason }; a rejection needs a reason. */
export const reviewRequestSchema = z.discriminatedUnion(
  'approved',
  [
    z.object({ approved: z.literal(true), reason: approvalNote }),
    z.object({ approved: z.literal(false), reason: rejectionReason }),
  ],
  { errorMap: () => ({ message: 'approved must be true or false' }) },
)

/** The approve / reject form on /payment-review (the submit button carries the intent). */
export const reviewFormSchema = z.discriminatedUnion('intent', [
  z.object({ intent: z.literal('approve'), proofId: z.string().uuid(), reason: approvalNote }),
  z.object({ intent: z.literal('reject'), proofId: z.string().uuid(), reason: rejectionReason }),
])

/** The "Check again" button on /payment-review: a fresh on-chain check of one proof. */
export const recheckFormSchema = z.object({ intent: z.literal('recheck'), proofId: z.string().uuid() })
