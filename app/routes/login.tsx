import { getFormProps, useForm } from '@conform-to/react'
import { type ActionFunctionArgs, json, type LoaderFunctionArgs, redirect } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { TextField } from '#app/components/text-field.tsx'
import { FormError } from '#app/components/form-errors.tsx'
import { isEmailVerificationEnabled, logIn } from '#domain/accounts/account.server.ts'
import { loginSchema, parseAccountForm } from '#domain/accounts/account-schemas.ts'
import type { AccountActionData } from '#app/accounts/account-form.server.ts'
import { readForm } from '#app/utils/form-body.server.ts'
import { formErrorResponse } from '#app/utils/form-errors.server.ts'
import { getOptionalUser } from '#domain/sessions/auth.server.ts'
import { getDb } from '#platform/db.server.ts'
import { getEnv } from '#platform/env.server.ts'
import { isGoogleConfigured } from '#app/accounts/google-auth.server.ts'
import { safeRedirectPath } from '#app/utils/redirect-to.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'
import { seo } from '#app/document/seo.ts'

export const meta = () =>
  seo({ title: 'Login', description: 'Sign in to Pawtrait to turn your pet photos into portraits.' })

export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url)
  const redirectTo = safeRedirectPath(url.searchParams.get('redirectTo'))
  if (await getOptionalUser(request)) throw redirect(redirectTo)
  return json({
    redirectTo,
    googleEnabled: isGoogleConfigured(),
    googleFailed: url.searchParams.get('error') === 'google',
    forgotPasswordEnabled: isEmailVerificationEnabled(),
    contactEmail: getEnv().CONTACT_EMAIL,
  })
}

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readForm(request)
  const submission = parseAccountForm(formData, loginSchema)
  if (submission.status !== 'success') return json<AccountActionData>({ result: submission.reply() }, { status: 400 })
  try {
    const session = await logIn(getDb(), submission.value, getClientAddress(request))
    return redirect(safeRedirectPath(formData.get('redirectTo')), { headers: { 'Set-Cookie': session.cookie } })
  } catch (error) {
    return formErrorResponse<AccountActionData>(error, submission)
  }
}

export default function Login() {
  const data = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const submitting = useNavigation().state === 'submitting'
  const [form, fields] = useForm({
    id: 'login',
    lastResult: actionData?.result,
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseAccountForm(formData, loginSchema),
  })

  return (
    <section className="card form-card account-card">
      <h1>Login</h1>
      {data.googleFailed ? (
        <p className="form-error" role="alert">
          Google login failed
        </p>
      ) : null}
      <Form method="post" {...getFormProps(form)}>
        <FormError errors={form.errors} id={form.errorId} />
        <input type="hidden" name="redirectTo" value={data.redirectTo} />
        <TextField meta={fields.email} label="Email" type="email" autoComplete="email" />
        <TextField meta={fields.password} label="Password" type="password" autoComplete="current-password" />
        <button type="submit" className="button wide" disabled={submitting}>
          {submitting ? 'Signing in…' : 'Login'}
        </button>
      </Form>

      {data.googleEnabled ? (
        <>
          <p className="divider">
            <span>or</span>
          </p>
          <a className="button secondary wide" href="/api/auth/google">
            Sign in with Google
          </a>
        </>
      ) : null}

      <div className="account-links">
        <p>
          No account yet? <Link to="/register">Register</Link>
        </p>
        {data.forgotPasswordEnabled ? (
          <p>
            <Link to="/forgot-password">Forgot your password?</Link>
          </p>
        ) : (
          <p className="muted">
            Forgot your password? <a href={`mailto:${data.contactEmail}`}>Contact the administrator</a>
          </p>
        )}
      </div>
    </section>
  )
}
