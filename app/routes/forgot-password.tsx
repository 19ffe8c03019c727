import { getFormProps, useForm } from '@conform-to/react'
import { type ActionFunctionArgs, json } from '@remix-run/node'
import { Form, Link, useActionData, useNavigation } from '@remix-run/react'
import { RedirectNotice } from '#app/components/redirect-notice.tsx'
import { CodeField, CodeSentNotice, SendCodeButton } from '#app/accounts/code-field.tsx'
import { TextField } from '#app/components/text-field.tsx'
import { FormError } from '#app/components/form-errors.tsx'
import {
  passwordResetMessage,
  resetCodeSentMessage,
  resetPassword,
  sendPasswordResetCode,
} from '#domain/accounts/account-codes.server.ts'
import { forgotPasswordSchema, parseAccountForm, resetPasswordSchema } from '#domain/accounts/account-schemas.ts'
import type { AccountActionData } from '#app/accounts/account-form.server.ts'
import { readForm } from '#app/utils/form-body.server.ts'
import { formErrorResponse } from '#app/utils/form-errors.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'
import { seo } from '#app/document/seo.ts'

export const meta = () =>
  seo({ title: 'Forgot password', description: 'Reset your Pawtrait password with an email code.' })

const REDIRECT_SECONDS = 3
type Step = 'email' | 'reset'

/** Step 1 sends a code (intent=send, also "Resend" in step 2); step 2 resets the password (intent=reset). */
const intentOf = (intent: FormDataEntryValue | null, step: Step) =>
  intent === 'send' || (intent === null && step === 'email') ? 'send' : 'reset'
const schemaFor = (intent: 'send' | 'reset') => (intent === 'send' ? forgotPasswordSchema : resetPasswordSchema)

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readForm(request)
  const step: Step = formData.get('step') === 'reset' ? 'reset' : 'email'
  const ip = getClientAddress(request)
  return intentOf(formData.get('intent'), step) === 'send' ? sendCode(formData, step, ip) : reset(formData, ip)
}

async function sendCode(formData: FormData, step: Step, ip: string) {
  const submission = parseAccountForm(formData, forgotPasswordSchema)
  if (submission.status !== 'success')
    return json<AccountActionData>({ result: submission.reply(), step }, { status: 400 })
  try {
    await sendPasswordResetCode(getDb(), submission.value.email, ip)
  } catch (error) {
    return formErrorResponse<AccountActionData>(error, submission, { step })
  }
  return json<AccountActionData>({
    result: submission.reply(),
    message: resetCodeSentMessage,
    codeSentAt: Date.now(),
    step: 'reset',
  })
}

async function reset(formData: FormData, ip: string) {
  const submission = parseAccountForm(formData, resetPasswordSchema)
  if (submission.status !== 'success') {
    return json<AccountActionData>({ result: submission.reply(), step: 'reset' }, { status: 400 })
  }
  try {
    await resetPassword(getDb(), submission.value, ip)
  } catch (error) {
    return formErrorResponse<AccountActionData>(error, submission, { step: 'reset' })
  }
  return json<AccountActionData>({
    result: submission.reply({ resetForm: true }),
    message: passwordResetMessage,
    done: true,
  })
}

export default function ForgotPassword() {
  const actionData = useActionData<typeof action>()
  const submitting = useNavigation().state === 'submitting'
  const step: Step = actionData?.step ?? 'email'
  const [form, fields] = useForm({
    id: 'forgot-password',
    lastResult: actionData?.result,
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseAccountForm(formData, schemaFor(intentOf(formData.get('intent'), step))),
  })

  if (actionData?.done) {
    return (
      <RedirectNotice
        className="card form-card account-card"
        title="Forgot password"
        message={actionData.message}
        to="/login"
        destination={<Link to="/login">the login page</Link>}
        seconds={REDIRECT_SECONDS}
      />
    )
  }

  return (
    <section className="card form-card account-card">
      <h1>Forgot password</h1>
      <p className="muted">
        {step === 'email'
          ? 'Enter the email of your account and we will send you a verification code.'
          : 'Enter the code from the email and choose a new password.'}
      </p>
      <Form method="post" {...getFormProps(form)}>
        {step === 'reset' ? (
          <>
            {/* The first submit button is the one Enter presses: resetting, not resending. */}
            <button type="submit" name="intent" value="reset" hidden tabIndex={-1} aria-hidden="true" />
            <input type="hidden" name="step" value="reset" />
          </>
        ) : null}
        <FormError errors={form.errors} id={form.errorId} />
        <CodeSentNotice sent={actionData} />
        <TextField
          meta={fields.email}
          label="Email"
          type="email"
          autoComplete="email"
          addon={step === 'email' ? <SendCodeButton value="send" sentAt={actionData?.codeSentAt} /> : undefined}
        />
        {step === 'reset' ? (
          <>
            <CodeField
              meta={fields.verificationCode}
              label="Verification code"
              sendIntent="send"
              sentAt={actionData?.codeSentAt}
            />
            <TextField meta={fields.password} label="New password" type="password" autoComplete="new-password" />
            <TextField
              meta={fields.confirmPassword}
              label="Confirm new password"
              type="password"
              autoComplete="new-password"
            />
            <button type="submit" name="intent" value="reset" className="button wide" disabled={submitting}>
              {submitting ? 'Please wait…' : 'Reset Password'}
            </button>
          </>
        ) : null}
      </Form>
      <div className="account-links">
        <p>
          Remembered it? <Link to="/login">Login</Link>
        </p>
      </div>
    </section>
  )
}
