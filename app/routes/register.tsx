import { getFormProps, useForm } from '@conform-to/react'
import { type ActionFunctionArgs, json, type LoaderFunctionArgs, redirect } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { CodeField, CodeSentNotice } from '#app/accounts/code-field.tsx'
import { TextField } from '#app/components/text-field.tsx'
import { FormError } from '#app/components/form-errors.tsx'
import { registrationCodeSentMessage, sendRegistrationCode } from '#domain/accounts/account-codes.server.ts'
import { isEmailVerificationEnabled, register } from '#domain/accounts/account.server.ts'
import { parseAccountForm, registerFormSchema, sendCodeSchema } from '#domain/accounts/account-schemas.ts'
import type { AccountActionData } from '#app/accounts/account-form.server.ts'
import { readForm } from '#app/utils/form-body.server.ts'
import { formErrorResponse } from '#app/utils/form-errors.server.ts'
import { getOptionalUser } from '#domain/sessions/auth.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'
import { seo } from '#app/document/seo.ts'
import { safeRedirectPath } from '#app/utils/redirect-to.server.ts'
import { referralSlugFrom } from '#app/sharing/referral-cookie.server.ts'

export const meta = () => seo({ title: 'Register', description: 'Create a Pawtrait account and get free credits.' })

/** The Send Code button submits this form with intent=send-code; every other submit registers. */
const schemaFor = (intent: FormDataEntryValue | null, verificationEnabled: boolean) =>
  intent === 'send-code' ? sendCodeSchema : registerFormSchema(verificationEnabled)

export async function loader({ request }: LoaderFunctionArgs) {
  const redirectTo = safeRedirectPath(new URL(request.url).searchParams.get('redirectTo'))
  if (await getOptionalUser(request)) throw redirect(redirectTo)
  return json({ verificationEnabled: isEmailVerificationEnabled(), redirectTo })
}

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readForm(request)
  const ip = getClientAddress(request)
  return formData.get('intent') === 'send-code' ? sendCode(formData, ip) : createAccount(request, formData, ip)
}

async function sendCode(formData: FormData, ip: string) {
  const submission = parseAccountForm(formData, sendCodeSchema)
  if (submission.status !== 'success') return json<AccountActionData>({ result: submission.reply() }, { status: 400 })
  try {
    await sendRegistrationCode(getDb(), submission.value.email, ip)
  } catch (error) {
    return formErrorResponse<AccountActionData>(error, submission)
  }
  return json<AccountActionData>({
    result: submission.reply(),
    message: registrationCodeSentMessage,
    codeSentAt: Date.now(),
  })
}

async function createAccount(request: Request, formData: FormData, ip: string) {
  const verificationEnabled = isEmailVerificationEnabled()
  const submission = parseAccountForm(formData, registerFormSchema(verificationEnabled))
  if (submission.status !== 'success') return json<AccountActionData>({ result: submission.reply() }, { status: 400 })
  try {
    const session = await register(getDb(), submission.value, ip, referralSlugFrom(request))
    // With verification on, the address is now proven: the page that says so, then home (or
    // `redirectTo`: where a guest was going, such as a share page's "Make one of my pet").
    const redirectTo = safeRedirectPath(formData.get('redirectTo'))
    const next = verificationEnabled && redirectTo === '/' ? '/email-verified?status=success' : redirectTo
    return redirect(next, { headers: { 'Set-Cookie': session.cookie } })
  } catch (error) {
    return formErrorResponse<AccountActionData>(error, submission)
  }
}

export default function Register() {
  const { verificationEnabled, redirectTo } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const submitting = useNavigation().state === 'submitting'
  const [form, fields] = useForm({
    id: 'register',
    lastResult: actionData?.result,
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseAccountForm(formData, schemaFor(formData.get('intent'), verificationEnabled)),
  })

  return (
    <section className="card form-card account-card">
      <h1>Register</h1>
      <Form method="post" {...getFormProps(form)}>
        {/* The first submit button is the one Enter presses: registering, not sending a code. */}
        <button type="submit" name="intent" value="register" hidden tabIndex={-1} aria-hidden="true" />
        <input type="hidden" name="redirectTo" value={redirectTo} />
        <FormError errors={form.errors} id={form.errorId} />
        <CodeSentNotice sent={actionData} />
        <TextField meta={fields.name} label="Username" type="text" autoComplete="username" maxLength={50} />
        <TextField meta={fields.email} label="Email" type="email" autoComplete="email" />
        <CodeField
          meta={fields.verificationCode}
          label={verificationEnabled ? 'Verification code' : 'Verification code (optional)'}
          sendIntent="send-code"
          sentAt={actionData?.codeSentAt}
        />
        <TextField meta={fields.password} label="Password" type="password" autoComplete="new-password" />
        <TextField meta={fields.confirmPassword} label="Confirm password" type="password" autoComplete="new-password" />
        <button type="submit" name="intent" value="register" className="button wide" disabled={submitting}>
          {submitting ? 'Please wait…' : 'Register'}
        </button>
      </Form>
      <div className="account-links">
        <p>
          Already have an account?{' '}
          <Link to={redirectTo === '/' ? '/login' : `/login?redirectTo=${encodeURIComponent(redirectTo)}`}>Login</Link>
        </p>
      </div>
    </section>
  )
}
