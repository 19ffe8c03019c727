import { getFormProps, useForm } from '@conform-to/react'
import { type ActionFunctionArgs, json, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { TextField } from '#app/components/text-field.tsx'
import { FieldError, FormError } from '#app/components/form-errors.tsx'
import { updateProfile } from '#domain/accounts/account.server.ts'
import { updateAvatar } from '#domain/accounts/avatar.server.ts'
import { toPublicUser } from '#domain/accounts/user.server.ts'
import { setTaskEmails } from '#domain/accounts/task-email-preference.server.ts'
import type { User } from '#platform/db-schema.ts'
import { parseAccountForm, profileSchema } from '#domain/accounts/account-schemas.ts'
import type { AccountActionData } from '#app/accounts/account-form.server.ts'
import { getRequestToken } from '#domain/sessions/auth.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { readForm } from '#app/utils/form-body.server.ts'
import { getDb } from '#platform/db.server.ts'
import { formErrorResponse } from '#app/utils/form-errors.server.ts'
import { badRequest } from '#domain/http-error.server.ts'
import { readMultipartForm } from '#app/utils/multipart.server.ts'
import { getClientAddress } from '#platform/client-address.server.ts'
import { seo } from '#app/document/seo.ts'
import { useExpiring } from '#app/hooks/use-expiring.ts'
import { ACCEPTED_IMAGES } from '#app/utils/accepted-images.ts'
import { DeleteMyAccount, DownloadMyData } from '#app/accounts/own-data.tsx'
import { answerOwnDataForm, isOwnDataForm } from '#app/accounts/own-data-forms.server.ts'
import { latestExport } from '#domain/user-data/data-exports.server.ts'
import { confirmsWithGoogle, GOOGLE_REAUTH_MINUTES } from '#domain/user-data/own-account-deletion.server.ts'

export const meta = () => seo({ title: 'Profile', description: 'Your Pawtrait profile.' })

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request)
  return json(
    {
      user: toPublicUser(user),
      hasPassword: user.password_hash !== null,
      taskEmails: user.task_emails,
      latestExport: await latestExport(getDb(), user.id),
      deleteWithGoogle: confirmsWithGoogle(user),
      reauthMinutes: GOOGLE_REAUTH_MINUTES,
    },
    { headers: { 'Cache-Control': 'private, no-store' } },
  )
}

/**
 * Forms that post here: the avatar upload (multipart), the profile fields, the email switch, and
 * "Download my data" and "Delete my account" (own-data-forms.server.ts).
 */
export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request)
  const multipart = request.headers.get('content-type')?.startsWith('multipart/form-data')
  if (multipart) return changeAvatar(request, user)
  const form = await readForm(request)
  if (isOwnDataForm(form)) return answerOwnDataForm(request, form, user)
  return form.has('taskEmails') ? changeTaskEmails(form, user) : changeProfile(request, form, user)
}

async function changeTaskEmails(form: FormData, user: User) {
  const on = form.get('taskEmails') === 'on'
  await setTaskEmails(getDb(), user.id, on)
  const message = on ? 'You will get an email when long work ends' : 'No more emails when long work ends'
  return json<AccountActionData>({ result: { status: 'success' }, message, form: 'task-emails' })
}

async function changeAvatar(request: Request, user: User) {
  try {
    const picture = (await readMultipartForm(request)).get('avatar')
    if (!(picture instanceof File) || picture.size === 0) throw badRequest('Please choose a picture to upload')
    await updateAvatar(getDb(), user, Buffer.from(await picture.arrayBuffer()))
  } catch (error) {
    return formErrorResponse(error, undefined, { form: 'avatar' })
  }
  return json<AccountActionData>({
    result: { status: 'success' },
    message: 'Avatar updated successfully',
    form: 'avatar',
  })
}

async function changeProfile(request: Request, form: FormData, user: User) {
  const submission = parseAccountForm(form, profileSchema)
  if (submission.status !== 'success') return json<AccountActionData>({ result: submission.reply() }, { status: 400 })
  try {
    await updateProfile(getDb(), user, submission.value, await getRequestToken(request), getClientAddress(request))
  } catch (error) {
    return formErrorResponse<AccountActionData>(error, submission)
  }
  const result = submission.reply({ hideFields: ['password', 'currentPassword'] })
  return json<AccountActionData>({ result, message: 'Profile updated successfully', form: 'profile' })
}

export default function Profile() {
  const { user, hasPassword, taskEmails, latestExport, deleteWithGoogle, reauthMinutes } =
    useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const navigation = useNavigation()
  const busy = navigation.state === 'submitting'
  const avatarAnswer = actionData?.form === 'avatar' ? actionData : undefined
  const ownData = (form: string) =>
    actionData?.form === form
      ? { message: actionData.message, error: actionData.result.error?.['']?.[0] ?? undefined }
      : undefined
  const profileAnswer = ['avatar', 'task-emails', 'export', 'delete-account'].includes(actionData?.form ?? '')
    ? undefined
    : actionData
  const success = useExpiring(actionData?.message && !ownData('export') ? actionData : null)
  const [form, fields] = useForm({
    id: 'profile',
    lastResult: profileAnswer?.result,
    defaultValue: { name: user.name, email: user.email },
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseAccountForm(formData, profileSchema),
  })
  const avatarErrors = avatarAnswer?.result.error?.['']

  return (
    <section className="card form-card account-card">
      <h1>Profile</h1>
      {success ? (
        <p className="form-success" role="status">
          {success.message}
        </p>
      ) : null}

      <Form method="post" encType="multipart/form-data" className="avatar-form">
        {user.profilePicture ? (
          <img className="avatar" src={user.profilePicture} alt="Your avatar" width={96} height={96} />
        ) : (
          <span className="avatar avatar-placeholder" aria-hidden="true">
            {user.name.slice(0, 1).toUpperCase()}
          </span>
        )}
        <div className="field grow">
          <label htmlFor="avatar">Avatar</label>
          <input id="avatar" name="avatar" type="file" accept={ACCEPTED_IMAGES} />
          <FieldError errors={avatarErrors ? [`Failed to upload avatar: ${avatarErrors.join(' ')}`] : undefined} />
          <button type="submit" className="button secondary" disabled={busy}>
            Upload avatar
          </button>
        </div>
      </Form>

      <Form method="post" {...getFormProps(form)}>
        <FormError errors={form.errors} id={form.errorId} />
        <TextField meta={fields.name} label="Username" type="text" autoComplete="username" maxLength={50} />
        <TextField meta={fields.email} label="Email (cannot be changed)" type="email" readOnly />
        <TextField
          meta={fields.password}
          label="New password (leave empty to keep the current one)"
          type="password"
          autoComplete="new-password"
        />
        {hasPassword ? (
          <TextField
            meta={fields.currentPassword}
            label="Current password (needed to set a new one)"
            type="password"
            autoComplete="current-password"
          />
        ) : null}
        <button type="submit" className="button wide" disabled={busy}>
          Save changes
        </button>
      </Form>

      <Form method="post" className="task-emails-form">
        <span id="task-emails-label">Email me when a video, or an image that took long, is done</span>
        <button
          type="submit"
          name="taskEmails"
          value={taskEmails ? 'off' : 'on'}
          role="switch"
          aria-checked={taskEmails}
          aria-labelledby="task-emails-label"
          className="button secondary"
          disabled={busy}
        >
          {taskEmails ? 'On' : 'Off'}
        </button>
      </Form>

      <DownloadMyData latest={latestExport} answer={ownData('export')} busy={busy} />
      <DeleteMyAccount
        withGoogle={deleteWithGoogle}
        reauthMinutes={reauthMinutes}
        answer={ownData('delete-account')}
        busy={busy}
      />
    </section>
  )
}
