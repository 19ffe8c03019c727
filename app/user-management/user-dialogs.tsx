import { getFormProps, getInputProps, getSelectProps, type SubmissionResult, useForm } from '@conform-to/react'
import { Form, Link } from '@remix-run/react'
import type { ReactNode } from 'react'
import { TextField } from '#app/components/text-field.tsx'
import { FieldError, FormError } from '#app/components/form-errors.tsx'
import { UrlModal } from '#app/components/url-modal.tsx'
import type { PublicUser } from '#domain/accounts/user.server.ts'
import { zhUserManagement as t } from '#app/user-management/zh-user-management.ts'

const roleChoices = ['user', 'admin', 'superadmin'] as const

interface DialogProps {
  /** The page without the dialog: where forms post and where closing goes. */
  closeHref: string
  lastResult?: SubmissionResult<string[]>
}

function DialogButtons({ closeHref, submit, danger }: { closeHref: string; submit: ReactNode; danger?: boolean }) {
  return (
    <div className="dialog-buttons">
      <Link to={closeHref} replace preventScrollReset className="button secondary">
        {t.cancel}
      </Link>
      <button type="submit" className={`button${danger ? ' danger' : ''}`}>
        {submit}
      </button>
    </div>
  )
}

export function AddUserDialog({ closeHref, lastResult }: DialogProps) {
  const [form, fields] = useForm<Record<'email' | 'password' | 'name' | 'role' | 'credits', string>>({
    id: 'add-user',
    lastResult,
    defaultValue: { role: 'user', credits: '10' },
  })
  return (
    <UrlModal title={t.addDialog.title} closeHref={closeHref} closeLabel={t.cancel}>
      <Form method="post" action={closeHref} preventScrollReset {...getFormProps(form)}>
        <input type="hidden" name="intent" value="add" />
        <FormError id={form.errorId} errors={form.errors} />
        <TextField meta={fields.email} label={t.addDialog.email} type="email" autoComplete="off" />
        <TextField meta={fields.password} label={t.addDialog.password} type="password" autoComplete="new-password" />
        <TextField meta={fields.name} label={t.addDialog.name} type="text" autoComplete="off" />
        <div className="field">
          <label htmlFor={fields.role.id}>{t.addDialog.role}</label>
          <select {...getSelectProps(fields.role)}>
            {roleChoices.map((role) => (
              <option key={role} value={role}>
                {t.roles[role]}
              </option>
            ))}
          </select>
          <FieldError id={fields.role.errorId} errors={fields.role.errors} />
        </div>
        <div className="field">
          <label htmlFor={fields.credits.id}>{t.addDialog.credits}</label>
          <input {...getInputProps(fields.credits, { type: 'number' })} min={0} step={1} />
          <FieldError id={fields.credits.errorId} errors={fields.credits.errors} />
        </div>
        <DialogButtons closeHref={closeHref} submit={t.addDialog.submit} />
      </Form>
    </UrlModal>
  )
}

export function CreditsDialog({ closeHref, lastResult, user }: DialogProps & { user: PublicUser }) {
  const [form, fields] = useForm<{ credits: string }>({
    id: `credits-${user.id}`,
    lastResult,
    defaultValue: { credits: String(user.credits) },
  })
  return (
    <UrlModal title={t.creditsDialog.title} closeHref={closeHref} closeLabel={t.cancel}>
      <Form method="post" action={closeHref} preventScrollReset {...getFormProps(form)}>
        <input type="hidden" name="intent" value="credits" />
        <input type="hidden" name="userId" value={user.id} />
        <p>
          {t.creditsDialog.user}：{user.name}（{user.email}）
        </p>
        <FormError id={form.errorId} errors={form.errors} />
        <div className="field">
          <label htmlFor={fields.credits.id}>{t.creditsDialog.credits}</label>
          <input {...getInputProps(fields.credits, { type: 'number' })} min={0} step={1} autoFocus />
          <FieldError id={fields.credits.errorId} errors={fields.credits.errors} />
        </div>
        <DialogButtons closeHref={closeHref} submit={t.creditsDialog.submit} />
      </Form>
    </UrlModal>
  )
}

export function DeleteUserDialog({ closeHref, user }: DialogProps & { user: PublicUser }) {
  return (
    <UrlModal title={t.deleteDialog.title} closeHref={closeHref} closeLabel={t.cancel}>
      <Form method="post" action={closeHref} preventScrollReset>
        <input type="hidden" name="intent" value="delete" />
        <input type="hidden" name="userId" value={user.id} />
        <p>{t.deleteDialog.confirm(user.name)}</p>
        <DialogButtons closeHref={closeHref} submit={t.deleteDialog.submit} danger />
      </Form>
    </UrlModal>
  )
}
