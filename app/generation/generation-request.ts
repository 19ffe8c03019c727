import { useNavigate, useRevalidator } from '@remix-run/react'
import { useState } from 'react'
import {
  announceTaskSubmitted,
  taskFromSubmission,
  type ClientTask,
  type SubmittedTask,
} from '#app/generation/task-client.ts'
import type { GenerationDialog } from '#app/generation/dialogs.tsx'

interface GenerationRequestOptions {
  /** The API that takes the multipart form and answers { taskId } or { message, needPurchase }. */
  api: string
  /** This page: where the login sends the user back to. */
  page: string
  loginMessage: string
  genericFailure: string
  /** The purchase dialog's message when the 402 answer has none. */
  purchaseFallback: string
  onDialog: (dialog: GenerationDialog) => void
  onSubmitted: (task: ClientTask) => void
}

/**
 * Submits a generator form through its API: 401 asks to log in, 402 with needPurchase opens the
 * purchase dialog, any other failure the error dialog; a new task is shown, announced to the Today's
 * Tasks sidebar, and the credits in the page are reloaded.
 */
export function useGenerationRequest(options: GenerationRequestOptions) {
  const { api, page, loginMessage, genericFailure, purchaseFallback, onDialog, onSubmitted } = options
  const navigate = useNavigate()
  const revalidator = useRevalidator()
  const [submitting, setSubmitting] = useState(false)

  async function send(formData: FormData, task: Omit<SubmittedTask, 'id'>) {
    setSubmitting(true)
    try {
      const response = await fetch(api, { method: 'POST', body: formData })
      const body = (await response.json().catch(() => ({}))) as {
        taskId?: string
        message?: string
        needPurchase?: boolean
      }
      if (response.status === 401) {
        window.alert(loginMessage)
        return navigate(`/login?redirectTo=${page}`)
      }
      if (response.status === 402 && body.needPurchase) {
        return onDialog({ kind: 'purchase', message: body.message ?? purchaseFallback })
      }
      if (!response.ok || !body.taskId) return onDialog({ kind: 'error', message: body.message ?? genericFailure })
      const submitted: SubmittedTask = { id: body.taskId, ...task }
      onSubmitted(taskFromSubmission(submitted))
      announceTaskSubmitted(submitted)
      revalidator.revalidate() // the credits shown changed
    } catch {
      onDialog({ kind: 'error', message: genericFailure })
    } finally {
      setSubmitting(false)
    }
  }

  return { submitting, send }
}
