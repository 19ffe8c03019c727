/**
 * One submission path per form (decision 0039): a page's form posts to its page's action, with or
 * without JavaScript. Without it the action answers a success with a redirect (the page showing
 * the result). With it the page's script submits the same form through a fetcher and adds this
 * field, and the action answers the result as data instead (the new task's id, the chosen
 * version), which the page follows in place. Refusals are answered alike either way: the form's
 * errors, beside the field they name.
 */
const IN_PAGE_FIELD = 'inPage'

/** The form's data as the page's script sends it: asking for the answer as data. */
export function inPageSubmission(form: HTMLFormElement | FormData) {
  const data = form instanceof FormData ? form : new FormData(form)
  data.set(IN_PAGE_FIELD, '1')
  return data
}

/** Whether the page's script sent the form (inPageSubmission): answer data, not a redirect. */
export function asksInPageAnswer(form: FormData | Record<string, unknown>) {
  return (form instanceof FormData ? form.get(IN_PAGE_FIELD) : form[IN_PAGE_FIELD]) === '1'
}
