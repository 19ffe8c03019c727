import { Form, Link } from '@remix-run/react'
import type { PublicUser } from '#domain/accounts/user.server.ts'
import { zhUserManagement as t } from '#app/user-management/zh-user-management.ts'
import { formatTime } from '#app/user-management/format.ts'
import { type Column, DataTable } from '#app/user-management/data-table.tsx'

interface Props {
  users: PublicUser[]
  /** Where each row's forms post (the page without any open dialog). */
  formAction: string
  dialogHref: (dialog: 'credits' | 'delete', userId: string) => string
}

export function UsersTable({ users, formAction, dialogHref }: Props) {
  const columns: Column<PublicUser>[] = [
    {
      header: t.users.id,
      cell: (user) => <code>{user.id.slice(0, 8)}</code>,
      cellProps: (user) => ({ title: user.id }),
    },
    { header: t.users.name, cell: (user) => user.name },
    { header: t.users.email, cell: (user) => user.email },
    { header: t.users.role, cell: (user) => t.roles[user.role] },
    { header: t.users.credits, cell: (user) => user.credits },
    { header: t.users.createdAt, cell: (user) => formatTime(user.createdAt) },
    { header: t.users.lastLogin, cell: (user) => formatTime(user.lastLogin) },
    {
      header: t.users.status,
      cell: (user) => (
        <span className={`status-badge ${user.isBanned ? 'banned' : 'active'}`}>
          {user.isBanned ? t.status.banned : t.status.active}
        </span>
      ),
    },
    {
      header: t.users.actions,
      cell: (user) => <RowActions user={user} formAction={formAction} dialogHref={dialogHref} />,
      cellProps: () => ({ className: 'row-actions' }),
    },
  ]
  return (
    <DataTable
      rows={users}
      columns={columns}
      empty={t.users.empty}
      className="users-table"
      rowData={(user) => ({ 'data-email': user.email })}
    />
  )
}

/** Ban, unban and delete are not offered on superadmin rows (and the server refuses them too). */
function RowActions({ user, formAction, dialogHref }: Omit<Props, 'users'> & { user: PublicUser }) {
  return (
    <>
      <Link to={dialogHref('credits', user.id)} preventScrollReset className="button secondary small">
        {t.actions.editCredits}
      </Link>
      {user.role === 'superadmin' ? null : (
        <>
          <Form method="post" action={formAction} preventScrollReset>
            <input type="hidden" name="userId" value={user.id} />
            <button
              type="submit"
              name="intent"
              value={user.isBanned ? 'unban' : 'ban'}
              className="button secondary small"
            >
              {user.isBanned ? t.actions.unban : t.actions.ban}
            </button>
          </Form>
          <Link to={dialogHref('delete', user.id)} preventScrollReset className="button danger small">
            {t.actions.delete}
          </Link>
        </>
      )}
    </>
  )
}
