import { Form } from '@remix-run/react'

/**
 * Share one version of a finished portrait: a plain form posted to /shares (which makes the public
 * page and lists it with its Unshare button), so it works without JavaScript (decision 0037).
 */
export function ShareForm({ taskId, index }: { taskId: string; index: number }) {
  return (
    <Form method="post" action="/shares" className="share-form">
      <input type="hidden" name="task" value={taskId} />
      <input type="hidden" name="index" value={index} />
      <label>
        <input type="checkbox" name="listed" value="on" /> Let search engines list it
      </label>
      <button type="submit" className="button secondary">
        Share
      </button>
      <a href="/shares">My share pages</a>
    </Form>
  )
}
