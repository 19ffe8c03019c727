import { useNavigate, useRevalidator } from '@remix-run/react'
import { useState, type ReactNode } from 'react'
import {
  announceTaskSubmitted,
  taskFromSubmission,
  type ClientTask,
  type SubmittedTask,
} from '#app/generation/task-client.ts'
import { useRootData } from '#app/hooks/use-root-data.ts'

/** What sets one generator page apart from the other. */
export interface Generator {
  /** This page: where a login comes back to, and the purchase dialog's Close link. */
  page: string
  /** The API that takes the multipart form and answers { taskId } or { message, needPurchase }. */
  api: string
  loginMessage: string
  genericFailure: string
  /** The insufficient-credits dialog's title, and what it adds below the message. */
  purchaseTitle: string
  purchaseNote?: ReactNode
}

export type GenerationDialog = { kind: 'purchase' | 'error'; message: string }

/** What the page does with a submission through the API: show the new task, or a dialog. */
export interface TaskFollow {
  onSubmitted: (task: ClientTask) => void
  onDialog: (dialog: GenerationDialog) => void
}

/**
 * Submits a generator form through its API: without a user, or on a 401, asks to log in; 402 with
 * needPurchase opens the purchase dialog, any other failure the error dialog; a new task is shown,
 * announced to the Today's Tasks sidebar, and the credits in the page are reloaded.
 */
export function useGenerationRequest(generator: Generator, { onSubmitted, onDialog }: TaskFollow) {
  const { api, page, loginMessage, genericFailure } = generator
  const user = useRootData()?.user
  const navigate = useNavigate()
  const revalidator = useRevalidator()
  const [submitting, setSubmitting] = useState(false)

  function logInFirst() {
    window.alert(loginMessage)
    return navigate(`/login?redirectTo=${page}`)
  }

  async function send(formData: FormData, task: Omit<SubmittedTask, 'id'>) {
    if (!user) return logInFirst()
    setSubmitting(true)
    try {
      const response = await fetch(api, { method: 'POST', body: formData })
      const body = (await response.json().catch(() => ({}))) as {
        taskId?: string
        message?: string
        needPurchase?: boolean
      }
      if (response.status === 401) return logInFirst()
      const message = body.message ?? genericFailure
      if (response.status === 402 && body.needPurchase) return onDialog({ kind: 'purchase', message })
      if (!response.ok || !body.taskId) return onDialog({ kind: 'error', message })
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
