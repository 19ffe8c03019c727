import { getFormProps, getInputProps, getTextareaProps, useForm, type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import type { z } from 'zod'
import { AccessDenied } from '#app/components/access-denied.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FieldError } from '#app/components/form-errors.tsx'
import { VerificationBadge } from '#app/accounts/verification-badge.tsx'
import { formatUsd, paymentMethodLabels, recheckFormSchema, reviewFormSchema } from '#domain/payments/payment-rules.ts'
import { requestVerification } from '#domain/payments/payment-verification.server.ts'
import {
  listPendingProofs,
  listReviewedProofs,
  reviewPaymentProof,
  toPendingProof,
  type PublicPendingProof,
} from '#domain/payments/payments.server.ts'
import { systemSettingLabels, systemSettingsSchema } from '#domain/credits/system-config-schema.ts'
import { getSystemConfig, saveSystemConfig } from '#domain/credits/system-config.server.ts'
import type { User } from '#platform/db-schema.ts'
import { getDb } from '#platform/db.server.ts'
import { readForm } from '#app/utils/form-body.server.ts'
import { formErrorResponse, type FormActionData } from '#app/utils/form-errors.server.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { seo } from '#app/document/seo.ts'

export const meta: MetaFunction = () =>
  seo({ title: 'Payment Review', description: 'Review payment proofs and edit the credit costs.' })

const SETTINGS_FORM = 'system-settings'

export async function loader({ request }: LoaderFunctionArgs) {
  await requirePermission(request, 'reviewPayments')
  const db = getDb()
  const [proofs, reviewed, settings] = await Promise.all([
    listPendingProofs(db),
    listReviewedProofs(db),
    getSystemConfig(db),
  ])
  return json({ proofs: proofs.map(toPendingProof), reviewed, settings })
}

export async function action({ request }: ActionFunctionArgs) {
  const reviewer = await requirePermission(request, 'reviewPayments')
  const formData = await readForm(request)
  const intent = formData.get('intent')
  if (intent === 'recheck') return recheck(formData)
  if (intent !== 'settings') return review(formData, reviewer)
  await requirePermission(request, 'editSystemConfig')
  return saveSettings(formData)
}

/** "Check again": queues a fresh on-chain check; the page shows its result on the next load. */
async function recheck(formData: FormData) {
  const form = String(formData.get('proofId'))
  const submission = parseWithZod(formData, { schema: recheckFormSchema })
  if (submission.status !== 'success') {
    return json<FormActionData>(
      { form, result: submission.reply({ formErrors: ['Payment proof not found'] }) },
      { status: 404 },
    )
  }
  try {
    await requestVerification(getDb(), submission.value.proofId)
    const message = 'A fresh on-chain check has been queued; reload the page in a few seconds to see its result.'
    return json<FormActionData>({ form, result: submission.reply(), message })
  } catch (error) {
    return formErrorResponse(error, submission, { form })
  }
}

async function saveSettings(formData: FormData) {
  const submission = parseWithZod(formData, { schema: systemSettingsSchema })
  if (submission.status !== 'success') {
    return json<FormActionData>({ form: SETTINGS_FORM, result: submission.reply() }, { status: 400 })
  }
  await saveSystemConfig(getDb(), submission.value)
  return json<FormActionData>({
    form: SETTINGS_FORM,
    result: submission.reply(),
    message: 'System settings updated successfully',
  })
}

async function review(formData: FormData, reviewer: User) {
  const submission = parseWithZod(formData, { schema: reviewFormSchema })
  const form = String(formData.get('proofId'))
  if (submission.status !== 'success')
    return json<FormActionData>({ form, result: submission.reply() }, { status: 400 })
  const { intent, proofId, reason } = submission.value
  try {
    const proof = await reviewPaymentProof(getDb(), { proofId, reviewer, approved: intent === 'approve', reason })
    const message =
      intent === 'approve'
        ? `Approved: ${proof.credit_amount} credits added to ${proof.owner_name}'s account.`
        : `Rejected the payment proof from ${proof.owner_name}.`
    return json<FormActionData>({ form, result: submission.reply({ resetForm: true }), message })
  } catch (error) {
    return formErrorResponse(error, submission, { form: form })
  }
}

export default function PaymentReview() {
  const { proofs, reviewed, settings } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const reviewOutcome = actionData && actionData.form !== SETTINGS_FORM ? actionData : undefined
  const reviewError = reviewOutcome?.result.error?.['']

  return (
    <section className="payment-review">
      <h1>Payment Review</h1>
      {reviewOutcome?.message ? (
        <p className="form-success" role="status">
          {reviewOutcome.message}
        </p>
      ) : null}
      {reviewError ? (
        <p className="form-error" role="alert">
          {reviewError.join(' ')}
        </p>
      ) : null}

      <h2>Pending payment proofs ({proofs.length})</h2>
      {proofs.length === 0 ? <p className="muted">No pending payment proofs.</p> : null}
      <ul className="proof-list">
        {proofs.map((proof) => (
          <ProofCard
            key={proof.id}
            proof={proof}
            lastResult={reviewOutcome?.form === proof.id ? reviewOutcome.result : undefined}
          />
        ))}
      </ul>

      <ReviewedPayments payments={reviewed} />

      <SettingsForm
        settings={settings}
        lastResult={actionData?.form === SETTINGS_FORM ? actionData.result : undefined}
        message={actionData?.form === SETTINGS_FORM ? actionData.message : undefined}
      />
    </section>
  )
}

function ProofCard({ proof, lastResult }: { proof: PublicPendingProof; lastResult?: SubmissionResult<string[]> }) {
  const navigation = useNavigation()
  const [form, fields] = useForm<z.input<typeof reviewFormSchema>, z.output<typeof reviewFormSchema>>({
    id: `review-${proof.id}`,
    lastResult,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: reviewFormSchema }),
  })
  const busy = navigation.state !== 'idle' && navigation.formData?.get('proofId') === proof.id
  const submitted = proof.createdAt.slice(0, 16).replace('T', ' ')

  return (
    <li className="card proof-card">
      <div className="proof-details">
        <p className="proof-user">
          <strong>{proof.userId.name}</strong> <span className="muted">{proof.userId.email}</span>
        </p>
        <dl>
          <dt>Credits</dt>
          <dd>{proof.creditAmount}</dd>
          <dt>Amount</dt>
          <dd>{formatUsd(Math.round(proof.amount * 100))}</dd>
          <dt>Method</dt>
          <dd>{paymentMethodLabels[proof.paymentMethod]}</dd>
          <dt>Transaction ID</dt>
          <dd className="transaction-id">{proof.transactionId}</dd>
          <dt>Submitted</dt>
          <dd>{submitted} UTC</dd>
          <dt>Note</dt>
          <dd className="proof-note">{proof.paymentNote || <span className="muted">none</span>}</dd>
          <dt>On chain</dt>
          <dd>
            <VerificationBadge verification={proof.verification} />
            {proof.verification.status !== 'manual' ? (
              <Form method="post" className="recheck-form">
                <input type="hidden" name="proofId" value={proof.id} />
                <button type="submit" name="intent" value="recheck" className="button secondary" disabled={busy}>
                  Check again
                </button>
              </Form>
            ) : null}
          </dd>
        </dl>
      </div>
      {proof.screenshotUrl ? (
        <a className="proof-screenshot" href={proof.screenshotUrl} target="_blank" rel="noopener noreferrer">
          <img src={proof.screenshotUrl} alt={`Payment screenshot from ${proof.userId.name}`} loading="lazy" />
        </a>
      ) : (
        <p className="proof-screenshot muted">No screenshot</p>
      )}
      <Form method="post" className="review-form" {...getFormProps(form)}>
        <input type="hidden" name="proofId" value={proof.id} />
        <div className="field">
          <label htmlFor={fields.reason.id}>Reason (required to reject)</label>
          <textarea {...getTextareaProps(fields.reason)} rows={2} maxLength={500} />
          <FieldError id={fields.reason.errorId} errors={fields.reason.errors} />
        </div>
        <div className="row">
          <button type="submit" name="intent" value="approve" className="button" disabled={busy}>
            Approve
          </button>
          <button type="submit" name="intent" value="reject" className="button danger" disabled={busy}>
            Reject
          </button>
        </div>
      </Form>
    </li>
  )
}

/** The latest reviewed payments: card payments and on-chain confirmations are approved by the system. */
function ReviewedPayments({ payments }: { payments: ReturnType<typeof useLoaderData<typeof loader>>['reviewed'] }) {
  return (
    <>
      <h2>Reviewed payments</h2>
      {payments.length === 0 ? (
        <p className="muted">No reviewed payments yet.</p>
      ) : (
        <div className="table-scroll">
          <table className="data reviewed-payments">
            <thead>
              <tr>
                <th scope="col">Reviewed</th>
                <th scope="col">User</th>
                <th scope="col">Method</th>
                <th scope="col">Credits</th>
                <th scope="col">Amount</th>
                <th scope="col">Status</th>
                <th scope="col">By</th>
              </tr>
            </thead>
            <tbody>
              {payments.map((payment) => (
                <tr key={payment.id}>
                  <td>{(payment.reviewedAt ?? payment.createdAt).slice(0, 16).replace('T', ' ')} UTC</td>
                  <td className="proof-user">{payment.userId.email}</td>
                  <td>{paymentMethodLabels[payment.paymentMethod]}</td>
                  <td>{payment.creditAmount}</td>
                  <td>{formatUsd(Math.round(payment.amount * 100))}</td>
                  <td>{payment.status === 'approved' ? 'Approved' : 'Rejected'}</td>
                  <td>{payment.reviewedBy ?? 'the system'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  )
}

type Settings = ReturnType<typeof useLoaderData<typeof loader>>['settings']

function SettingsForm(props: { settings: Settings; lastResult?: SubmissionResult<string[]>; message?: string }) {
  const navigation = useNavigation()
  const [form, fields] = useForm<z.input<typeof systemSettingsSchema>>({
    id: SETTINGS_FORM,
    lastResult: props.lastResult,
    defaultValue: props.settings,
    shouldValidate: 'onBlur',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: systemSettingsSchema }),
  })
  const saving = navigation.state !== 'idle' && navigation.formData?.get('intent') === 'settings'

  return (
    <Form method="post" className="card settings-form" {...getFormProps(form)}>
      <h2>System configuration</h2>
      {props.message ? (
        <p className="form-success" role="status">
          {props.message}
        </p>
      ) : null}
      <div className="settings-grid">
        {(Object.keys(systemSettingLabels) as (keyof Settings)[]).map((name) => (
          <div className="field" key={name}>
            <label htmlFor={fields[name].id}>{systemSettingLabels[name]}</label>
            <input
              {...getInputProps(fields[name], { type: 'number' })}
              min={name === 'printMarkup' ? 1 : 0}
              step={name === 'printMarkup' ? 0.01 : 1}
            />
            <FieldError id={fields[name].errorId} errors={fields[name].errors} />
          </div>
        ))}
      </div>
      <input type="hidden" name="intent" value="settings" />
      <button type="submit" className="button" disabled={saving}>
        {saving ? 'Saving…' : 'Save settings'}
      </button>
    </Form>
  )
}

export function ErrorBoundary() {
  return (
    <GeneralErrorBoundary
      statusHandlers={{ 403: () => <AccessDenied message="Only super administrators can review payments." /> }}
      fallback="The payment review page could not be loaded. Please try again later."
    />
  )
}
