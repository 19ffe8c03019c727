import { json } from '@remix-run/node'
import { HttpError } from '#domain/http-error.server.ts'
import { assertPlainText } from './text-input.ts'

/**
 * The posted (url-encoded) form of a page action. A malformed body, or a field holding a control
 * character, is answered 400 (thrown, so the error boundary shows it) rather than a crash further on.
 */
export async function readForm(request: Request) {
  let form: FormData
  try {
    form = await request.formData()
  } catch {
    throw json({ message: 'Invalid form data' }, { status: 400 })
  }
  try {
    assertPlainText(form)
  } catch (error) {
    if (error instanceof HttpError) throw json({ message: error.message }, { status: error.status })
    throw error
  }
  return form
}
