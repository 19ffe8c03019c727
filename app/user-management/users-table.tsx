import { Form, Link } from '@remix-run/react'
import type { PublicUser } from '#domain/accounts/user.server.ts'
import { zhUserManagement as t } from '#app/user-management/zh-user-management.ts'
import { formatTime } from '#app/user-management/format.ts'

interface Props {
  users: PublicUser[]
  /** Where each row's forms post (the page without any open dialog). */
  formAction: string
  dialogHref: (dialog: 'credits' | 'delete', userId: string) => string
}

/** Ban, unban and delete are not offered on superadmin rows (and the server refuses them too). */
export function UsersTable({ users, formAction, dialogHref }: Props) {
  if (users.length === 0) return <p className="muted">{t.users.empty}</p>
  return (
    <div className="table-scroll">
      <table className="data users-table">
        <thead>
          <tr>
            <th scope="col">{t.users.id}</th>
            <th scope="col">{t.users.name}</th>
            <th scope="col">{t.users.email}</th>
            <th scope="col">{t.users.role}</th>
            <th scope="col">{t.users.credits}</th>
            <th scope="col">{t.users.createdAt}</th>
            <th scope="col">{t.users.lastLogin}</th>
            <th scope="col">{t.users.status}</th>
            <th scope="col">{t.users.actions}</th>
          </tr>
        </thead>
        <tbody>
          {users.map((user) => (
            <tr key={user.id} data-email={user.email}>
              <td title={user.id}>
                <code>{user.id.slice(0, 8)}</code>
              </td>
              <td>{user.name}</td>
              <td>{user.email}</td>
              <td>{t.roles[user.role]}</td>
              <td>{user.credits}</td>
              <td>{formatTime(user.createdAt)}</td>
              <td>{formatTime(user.lastLogin)}</td>
              <td>
                <span className={`status-badge ${user.isBanned ? 'banned' : 'active'}`}>
                  {user.isBanned ? t.status.banned : t.status.active}
                </span>
              </td>
              <td className="row-actions">
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
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
