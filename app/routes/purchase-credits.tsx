import { getFormProps, getInputProps, getTextareaProps, useForm } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { useHydrated } from '#app/hooks/use-hydrated.ts'
import type { z } from 'zod'
import { RedirectNotice } from '#app/components/redirect-notice.tsx'
import { FieldError } from '#app/components/form-errors.tsx'
import {
  CARD_INTENT,
  cardPurchaseFormSchema,
  CENTS_PER_CREDIT_STEP,
  creditAmountSchema,
  CREDIT_PACKAGES,
  creditOptions,
  formatUsd,
  MAX_CREDIT_AMOUNT,
  MIN_CREDIT_AMOUNT,
  CREDIT_STEP,
  paymentMethodLabels,
  paymentMethods,
  priceCents,
  purchaseFormSchema,
} from '#domain/payments/payment-rules.ts'
import { paymentDestinations, PROOF_SUBMITTED_MESSAGE, submitPaymentProof } from '#domain/payments/payments.server.ts'
import { createCardCheckout } from '#domain/payments/card-checkout.server.ts'
import { cardPaymentsState } from '#platform/stripe.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { getDb } from '#platform/db.server.ts'
import type { PaymentMethod } from '#platform/db-schema.ts'
import { formErrorResponse, type FormActionData } from '#app/utils/form-errors.server.ts'
import { readMultipartForm } from '#app/utils/multipart.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'
import { seo } from '#app/document/seo.ts'
import { ACCEPTED_IMAGES } from '#app/utils/accepted-images.ts'

export const meta: MetaFunction = () =>
  seo({ title: 'Purchase Credits', description: 'Buy Pawtrait credits by card, PayPal or USDT.' })

const REDIRECT_SECONDS = 3

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request)
  const { on, testMode } = cardPaymentsState()
  return json({ destinations: paymentDestinations(), card: { on, testMode } })
}

/** The form's schema for the button that sent it: "Pay by card" needs only the amount. */
const schemaFor = (formData: FormData) =>
  formData.get('intent') === CARD_INTENT ? cardPurchaseFormSchema : purchaseFormSchema

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request)
  let formData: FormData
  try {
    formData = await readMultipartForm(request)
  } catch (error) {
    return formErrorResponse(error)
  }
  if (formData.get('intent') === CARD_INTENT) return payByCard(formData, user)
  const submission = parseWithZod(formData, { schema: purchaseFormSchema })
  if (submission.status !== 'success') return json<FormActionData>({ result: submission.reply() }, { status: 400 })
  try {
    await submitPaymentProof(getDb(), user, submission.value, getClientAddress(request))
  } catch (error) {
    return formErrorResponse(error, submission)
  }
  return json<FormActionData>({ result: submission.reply({ resetForm: true }), message: PROOF_SUBMITTED_MESSAGE })
}

/** "Pay by card": off to Stripe's Checkout page (a 303 that a plain form post follows too). */
async function payByCard(formData: FormData, user: Awaited<ReturnType<typeof requireUser>>) {
  const submission = parseWithZod(formData, { schema: cardPurchaseFormSchema })
  if (submission.status !== 'success') return json<FormActionData>({ result: submission.reply() }, { status: 400 })
  try {
    const { url } = await createCardCheckout(getDb(), user, submission.value.creditAmount)
    return redirect(url, 303)
  } catch (error) {
    return formErrorResponse(error, submission)
  }
}

export default function PurchaseCredits() {
  const { destinations, card } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const navigation = useNavigation()
  const succeeded = Boolean(actionData?.message)

  const [form, fields] = useForm<
    z.input<typeof purchaseFormSchema>,
    z.output<typeof purchaseFormSchema> | z.output<typeof cardPurchaseFormSchema>
  >({
    id: 'purchase-credits',
    lastResult: actionData?.result,
    defaultValue: { creditOption: String(CREDIT_PACKAGES[0]), paymentMethod: 'usdt_trc20' },
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: schemaFor(formData) }),
  })
  const hydrated = useHydrated()
  const option = fields.creditOption.value
  const chosenCredits = Number(option === 'custom' ? fields.customCredits.value : option)
  const validChoice = creditAmountSchema.safeParse(chosenCredits).success
  const submitting = navigation.state !== 'idle' && navigation.formMethod?.toLowerCase() === 'post'
  const payingByCard = submitting && navigation.formData?.get('intent') === CARD_INTENT

  if (succeeded) {
    return (
      <RedirectNotice
        className="card form-card purchase"
        title="Purchase Credits"
        message={actionData?.message}
        to="/credit-history"
        destination={
          <>
            your <Link to="/credit-history">credit history</Link>
          </>
        }
        seconds={REDIRECT_SECONDS}
      />
    )
  }

  return (
    <section className="card purchase">
      <h1>Purchase Credits</h1>
      <p className="muted">
        {formatUsd(CENTS_PER_CREDIT_STEP)} per {CREDIT_STEP} credits.{' '}
        {card.on
          ? 'Pay by card at once, or send the payment by PayPal or USDT and tell us its transaction ID below.'
          : 'Send the payment, then tell us its transaction ID below.'}
      </p>
      <Form method="post" encType="multipart/form-data" {...getFormProps(form)}>
        {form.errors ? (
          <p className="form-error" id={form.errorId} role="alert">
            {form.errors.join(' ')}
          </p>
        ) : null}

        <fieldset className="choice-group" aria-describedby={fields.customCredits.errorId}>
          <legend>Credit amount</legend>
          {creditOptions.map((value) => (
            <label key={value} className="choice">
              <input {...getInputProps(fields.creditOption, { type: 'radio', value })} />
              {value === 'custom' ? (
                <span>Custom</span>
              ) : (
                <span>
                  <strong>{value} credits</strong> <span className="muted">{formatUsd(priceCents(Number(value)))}</span>
                </span>
              )}
            </label>
          ))}
          <div className="field custom-credits">
            <label htmlFor={fields.customCredits.id}>
              Custom amount (multiples of {CREDIT_STEP}, at least {MIN_CREDIT_AMOUNT})
            </label>
            <input
              {...getInputProps(fields.customCredits, { type: 'number' })}
              min={MIN_CREDIT_AMOUNT}
              max={MAX_CREDIT_AMOUNT}
              step={CREDIT_STEP}
              placeholder="e.g. 1500"
            />
            <FieldError
              id={fields.customCredits.errorId}
              errors={fields.customCredits.errors ?? fields.creditOption.errors}
            />
          </div>
          {/* Without JavaScript the total could not follow the choice (the options show their prices
              instead), so it stays invisible until hydration; its line is kept so nothing below moves. */}
          <p className={hydrated ? 'price-total' : 'price-total pending'} aria-live="polite">
            Total: <strong>{validChoice ? formatUsd(priceCents(chosenCredits)) : '—'}</strong>
          </p>
        </fieldset>

        {card.on ? (
          <div className="card-payment">
            <p className="card-payment-title">
              <strong>Card</strong>
              {card.testMode ? <span className="test-mode">Test mode</span> : null}
            </p>
            <p className="muted">
              Pay now on Stripe&rsquo;s secure page; the credits are added as soon as the payment goes through.
            </p>
            <button type="submit" name="intent" value={CARD_INTENT} className="button" disabled={submitting}>
              {payingByCard ? 'Opening the card payment…' : 'Pay by card'}
            </button>
          </div>
        ) : null}

        <fieldset className="choice-group">
          <legend>{card.on ? 'Or pay by PayPal or USDT' : 'Payment method'}</legend>
          {paymentMethods.map((value) => (
            <label key={value} className="choice method">
              <input {...getInputProps(fields.paymentMethod, { type: 'radio', value })} />
              <span>
                <strong>{paymentMethodLabels[value]}</strong>
                <PaymentDestination method={value} destinations={destinations} />
              </span>
            </label>
          ))}
          <FieldError id={fields.paymentMethod.errorId} errors={fields.paymentMethod.errors} />
        </fieldset>

        <div className="field">
          <label htmlFor={fields.transactionId.id}>Transaction ID</label>
          <input {...getInputProps(fields.transactionId, { type: 'text' })} autoComplete="off" />
          <FieldError id={fields.transactionId.errorId} errors={fields.transactionId.errors} />
        </div>

        <div className="field">
          <label htmlFor={fields.screenshot.id}>Screenshot (optional)</label>
          <input {...getInputProps(fields.screenshot, { type: 'file' })} accept={ACCEPTED_IMAGES} />
          <FieldError id={fields.screenshot.errorId} errors={fields.screenshot.errors} />
        </div>

        <div className="field">
          <label htmlFor={fields.paymentNote.id}>Note (optional)</label>
          <textarea {...getTextareaProps(fields.paymentNote)} rows={3} maxLength={1000} />
          <FieldError id={fields.paymentNote.errorId} errors={fields.paymentNote.errors} />
        </div>

        <p className="review-note">Payments are reviewed within 24 hours; the credits are added once approved.</p>
        <button type="submit" className="button" disabled={submitting}>
          {submitting && !payingByCard ? 'Submitting…' : 'Submit payment proof'}
        </button>
      </Form>
    </section>
  )
}

type Destinations = ReturnType<typeof useLoaderData<typeof loader>>['destinations']

function PaymentDestination({ method, destinations }: { method: PaymentMethod; destinations: Destinations }) {
  if (method === 'paypal_me') {
    return destinations.paypalMeUrl ? (
      <a href={destinations.paypalMeUrl} target="_blank" rel="noopener noreferrer" className="destination">
        {destinations.paypalMeUrl}
      </a>
    ) : (
      <span className="destination muted">PayPal is not configured yet</span>
    )
  }
  const address = method === 'usdt_trc20' ? destinations.trc20 : destinations.erc20
  return address ? (
    <span className="destination">
      Wallet address: <code>{address}</code>
    </span>
  ) : (
    <span className="destination muted">This wallet is not configured yet</span>
  )
}
