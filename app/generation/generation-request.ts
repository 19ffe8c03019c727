import { useFetcher, useNavigate } from '@remix-run/react'
import { useEffect, useRef, type ReactNode } from 'react'
import type { ClientTask } from '#domain/generation/task-view.ts'
import type { GenerationActionData } from '#app/generation/generation-forms.server.ts'
import { taskFromSubmission, type SubmittedTask } from '#app/generation/task-list.ts'
import { useTaskStore } from '#app/generation/task-store-context.tsx'
import { useRootData } from '#app/hooks/use-root-data.ts'
import { inPageSubmission } from '#app/utils/in-page-answer.ts'

/** What sets one generator page apart from the other. */
export interface Generator {
  /** This page: its action takes the form; a login comes back to it; the purchase dialog's Close link. */
  page: string
  loginMessage: string
  genericFailure: string
  /** The insufficient-credits dialog's title, and what it adds below the message. */
  purchaseTitle: string
  purchaseNote?: ReactNode
}

export type GenerationDialog = { kind: 'purchase'; message: string }

/** What the page does with a submission: show the new task, or the purchase dialog. */
export interface TaskFollow {
  onSubmitted: (task: ClientTask) => void
  onDialog: (dialog: GenerationDialog) => void
}

/** The purchase dialog an answer of the page's action asks for (a lack of credits), if any. */
export function purchaseDialogOf(answer: GenerationActionData | undefined): GenerationDialog | null {
  const message = answer?.needPurchase ? answer.result?.error?.['']?.[0] : undefined
  return message ? { kind: 'purchase', message } : null
}

/**
 * Submits a generator form to its page's action through a fetcher (the same action that takes the
 * form without JavaScript): without a user, asks to log in first; a lack of credits opens the
 * purchase dialog; the new task is shown and given to the task store, which follows it and opens
 * the Today's Tasks sidebar. Refusals come back as the form's errors (`answer`); Remix reads the
 * page's loaders again after the submission, so the credits shown are current.
 */
export function useGenerationRequest(generator: Generator, follow: TaskFollow, task: Omit<SubmittedTask, 'id'>) {
  const { page, loginMessage } = generator
  const user = useRootData()?.user
  const navigate = useNavigate()
  const store = useTaskStore()
  const fetcher = useFetcher<GenerationActionData>()
  const answer = fetcher.data
  // The answer is followed once, with what the page gave last.
  const latest = useRef({ follow, task, store })
  useEffect(() => {
    latest.current = { follow, task, store }
  })
  useEffect(() => {
    if (!answer) return
    const { follow, task, store } = latest.current
    if (answer.taskId !== undefined) {
      const submitted: SubmittedTask = { id: answer.taskId, ...task }
      follow.onSubmitted(taskFromSubmission(submitted))
      store?.submitted(submitted)
    }
    const dialog = purchaseDialogOf(answer)
    if (dialog) follow.onDialog(dialog)
  }, [answer])

  function send(formData: FormData) {
    if (!user) {
      window.alert(loginMessage)
      return navigate(`/login?redirectTo=${page}`)
    }
    fetcher.submit(inPageSubmission(formData), { method: 'post', encType: 'multipart/form-data', action: page })
  }

  return { submitting: fetcher.state !== 'idle', answer, send }
}
