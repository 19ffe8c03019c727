import type { SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import {
  Form,
  Link,
  type ShouldRevalidateFunction,
  useActionData,
  useLoaderData,
  useSearchParams,
} from '@remix-run/react'
import { useEffect, useState } from 'react'
import { z } from 'zod'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { RankingTable } from '#app/user-management/ranking-table.tsx'
import { AddUserDialog, CreditsDialog, DeleteUserDialog } from '#app/user-management/user-dialogs.tsx'
import { UsersTable } from '#app/user-management/users-table.tsx'
import {
  type ConsumptionRow,
  consumptionRanking,
  createUserAsAdmin,
  creditsSchema,
  deleteUserAsAdmin,
  listUsers,
  newUserSchema,
  isAdminRefusal,
  setBannedAsAdmin,
  setCreditsAsAdmin,
} from '#domain/user-management/user-admin.server.ts'
import { type PublicUser, toPublicUser } from '#domain/accounts/user.server.ts'
import { getDb } from '#platform/db.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { zhUserManagement as t } from '#app/user-management/zh-user-management.ts'
import { readForm } from '#app/utils/form-body.server.ts'

export const meta: MetaFunction = () => [{ title: `${t.pageTitle} — Pawtrait` }]

const PAGE = '/user-management'
const SUCCESS_VISIBLE_MS = 3_000
// Search parameters that only open a dialog or filter on the client: changing them needs no new data.
const clientOnlyParams = ['dialog', 'user', 'q']

function logged<T>(what: string) {
  return (error: unknown): T | null => {
    console.error(`[user-management] could not load ${what}:`, error)
    return null
  }
}

/** Everyone but a superadmin gets the access-restricted message (401 for guests, 403 for others). */
export async function loader({ request }: LoaderFunctionArgs) {
  await requirePermission(request, 'manageUsers')
  const showRanking = new URL(request.url).searchParams.get('ranking') === '1'
  const db = getDb()
  const [users, ranking] = await Promise.all([
    listUsers(db).then((rows) => rows.map(toPublicUser), logged<PublicUser[]>('users')),
    showRanking ? consumptionRanking(db).catch(logged<ConsumptionRow[]>('the consumption ranking')) : null,
  ])
  return json({ users, ranking, showRanking })
}

export const shouldRevalidate: ShouldRevalidateFunction = ({
  currentUrl,
  nextUrl,
  formMethod,
  defaultShouldRevalidate,
}) => {
  if (formMethod) return defaultShouldRevalidate
  const dataParams = (url: URL) => {
    const params = new URLSearchParams(url.search)
    for (const name of clientOnlyParams) params.delete(name)
    params.sort()
    return params.toString()
  }
  return dataParams(currentUrl) === dataParams(nextUrl) ? false : defaultShouldRevalidate
}

const intents = ['add', 'credits', 'ban', 'unban', 'delete'] as const
type Intent = (typeof intents)[number]

type ActionData = {
  intent: Intent | null
  /** The account a failed dialog form was about, to reopen it. */
  userId?: string
  result?: SubmissionResult<string[]>
  notice?: string
  error?: string
  /** Tells two identical notices apart, so each one shows for its own three seconds. */
  at: number
}

const failureFallback: Record<Intent, string> = {
  add: t.failure.addUser,
  credits: t.failure.updateCredits,
  ban: t.failure.ban,
  unban: t.failure.unban,
  delete: t.failure.deleteUser,
}

const reply = (data: Omit<ActionData, 'at'>, status = 200) => json<ActionData>({ ...data, at: Date.now() }, { status })

export async function action({ request }: ActionFunctionArgs) {
  await requirePermission(request, 'manageUsers')
  const formData = await readForm(request)
  const intent = z.enum(intents).safeParse(formData.get('intent'))
  if (!intent.success) return reply({ intent: null, error: t.invalidRequest }, 400)
  const userId = String(formData.get('userId') ?? '')
  try {
    switch (intent.data) {
      case 'add':
        return await addUser(formData)
      case 'credits':
        return await updateCredits(formData, userId)
      case 'ban':
      case 'unban':
        return await setBanned(intent.data, userId)
      case 'delete':
        return await deleteUser(userId)
    }
  } catch (error) {
    if (error instanceof HttpError && isAdminRefusal(error.code)) {
      return reply({ intent: intent.data, error: t.refusals[error.code] }, error.status)
    }
    console.error(`[user-management] ${intent.data} failed:`, error)
    return reply({ intent: intent.data, error: failureFallback[intent.data] }, 500)
  }
}

async function addUser(formData: FormData) {
  const submission = parseWithZod(formData, { schema: newUserSchema(t.validation) })
  if (submission.status !== 'success') return reply({ intent: 'add', result: submission.reply() }, 400)
  try {
    await createUserAsAdmin(getDb(), submission.value)
  } catch (error) {
    if (!(error instanceof HttpError) || !isAdminRefusal(error.code)) throw error
    return reply({ intent: 'add', result: submission.reply({ formErrors: [t.refusals[error.code]] }) }, error.status)
  }
  return reply({ intent: 'add', notice: t.success.userAdded })
}

async function updateCredits(formData: FormData, userId: string) {
  const submission = parseWithZod(formData, { schema: creditsSchema(t.validation) })
  if (submission.status !== 'success') return reply({ intent: 'credits', userId, result: submission.reply() }, 400)
  await setCreditsAsAdmin(getDb(), userId, submission.value.credits)
  return reply({ intent: 'credits', notice: t.success.creditsUpdated })
}

async function setBanned(intent: 'ban' | 'unban', userId: string) {
  await setBannedAsAdmin(getDb(), userId, intent === 'ban')
  return reply({ intent, notice: intent === 'ban' ? t.success.userBanned : t.success.userUnbanned })
}

async function deleteUser(userId: string) {
  await deleteUserAsAdmin(getDb(), userId)
  return reply({ intent: 'delete', notice: t.success.userDeleted })
}

export default function UserManagementPage() {
  const data = useLoaderData<typeof loader>()
  return (
    <div className="user-management" lang="zh-CN">
      <Manager users={data.users} ranking={data.ranking} showRanking={data.showRanking} />
    </div>
  )
}

function Restricted() {
  return (
    <div className="user-management" lang="zh-CN">
      <div className="card center-card" role="alert">
        <h1>{t.restricted.title}</h1>
        <p>{t.restricted.message}</p>
        <Link className="button" to="/">
          {t.restricted.home}
        </Link>
      </div>
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary statusHandlers={{ 401: Restricted, 403: Restricted }} fallback={t.failure.fetchUsers} />
}

const matchesQuery = (query: string) => {
  const needle = query.trim().toLowerCase()
  return (user: PublicUser) =>
    !needle || user.name.toLowerCase().includes(needle) || user.email.toLowerCase().includes(needle)
}

function Manager(props: { users: PublicUser[] | null; ranking: ConsumptionRow[] | null; showRanking: boolean }) {
  const actionData = useActionData<typeof action>()
  const [searchParams] = useSearchParams()
  // Filtering happens in the component, so the server applies ?q= the same way when it renders the page.
  const [query, setQuery] = useState(searchParams.get('q') ?? '')

  const href = (changes: Record<string, string | null>) => {
    const params = new URLSearchParams(searchParams)
    for (const [name, value] of Object.entries(changes)) {
      if (value === null) params.delete(name)
      else params.set(name, value)
    }
    const search = params.toString()
    return search ? `${PAGE}?${search}` : PAGE
  }
  const closeHref = href({ dialog: null, user: null })

  // A dialog form that failed validation stays open, even though the form posted to the page without it.
  const failedForm = actionData?.result?.status === 'error' ? actionData : null
  const dialog = failedForm ? failedForm.intent : searchParams.get('dialog')
  const dialogUser = props.users?.find(
    (user) => user.id === (failedForm ? failedForm.userId : searchParams.get('user')),
  )
  const visibleUsers = props.users?.filter(matchesQuery(query)) ?? []

  return (
    <>
      <h1>{t.pageTitle}</h1>
      <div className="user-toolbar">
        <Form method="get" className="user-search" role="search">
          <label htmlFor="user-search" className="visually-hidden">
            {t.search.label}
          </label>
          <input
            id="user-search"
            type="search"
            name="q"
            value={query}
            placeholder={t.search.placeholder}
            onChange={(event) => setQuery(event.target.value)}
          />
          {props.showRanking ? <input type="hidden" name="ranking" value="1" /> : null}
          <button type="submit" className="button secondary">
            {t.search.submit}
          </button>
        </Form>
        <Link to={href({ dialog: 'add', user: null })} preventScrollReset className="button">
          {t.addUser}
        </Link>
        <Link to={href({ ranking: props.showRanking ? null : '1' })} preventScrollReset className="button secondary">
          {props.showRanking ? t.hideRanking : t.showRanking}
        </Link>
      </div>

      {actionData?.notice ? <SuccessNotice key={actionData.at} message={actionData.notice} /> : null}
      {actionData?.error ? (
        <p className="form-error" role="alert">
          {actionData.error}
        </p>
      ) : null}

      {props.showRanking ? (
        props.ranking ? (
          <RankingTable rows={props.ranking} />
        ) : (
          <p className="form-error">{t.failure.fetchConsumption}</p>
        )
      ) : null}

      <section className="card user-section" aria-labelledby="users-title">
        <h2 id="users-title">{t.users.title}</h2>
        {props.users ? (
          <UsersTable
            users={visibleUsers}
            formAction={closeHref}
            dialogHref={(name, userId) => href({ dialog: name, user: userId })}
          />
        ) : (
          <p className="form-error">{t.failure.fetchUsers}</p>
        )}
      </section>

      {dialog === 'add' ? <AddUserDialog closeHref={closeHref} lastResult={failedForm?.result} /> : null}
      {dialog === 'credits' && dialogUser ? (
        <CreditsDialog closeHref={closeHref} lastResult={failedForm?.result} user={dialogUser} />
      ) : null}
      {dialog === 'delete' && dialogUser && dialogUser.role !== 'superadmin' ? (
        <DeleteUserDialog closeHref={closeHref} user={dialogUser} />
      ) : null}
    </>
  )
}

function SuccessNotice({ message }: { message: string }) {
  const [visible, setVisible] = useState(true)
  useEffect(() => {
    const timer = setTimeout(() => setVisible(false), SUCCESS_VISIBLE_MS)
    return () => clearTimeout(timer)
  }, [])
  return visible ? (
    <p className="form-success" role="status">
      {message}
    </p>
  ) : null
}
