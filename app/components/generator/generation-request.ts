import { Link, useNavigate, useRevalidator } from '@remix-run/react'
import { useEffect, useState, type ReactNode } from 'react'
import {
  announceTaskSubmitted,
  TASK_UPDATED_EVENT,
  taskFromSubmission,
  taskStatusText,
  type ClientTask,
  type SubmittedTask,
} from '#app/features/generation/task-client.ts'

// The pieces the image and video generator pages share: the upload preview, the submission through
// the API, the task shown in the result panel, and the purchase and error dialogs.

export const ACCEPTED_IMAGES = 'image/jpeg,image/png,image/webp,image/gif'

export type GenerationDialog = { kind: 'purchase' | 'error'; message: string }

/**
 * The task a generator page shows: the one its loader found (after a submission without
 * JavaScript), then the one it submitted. The Today's Tasks sidebar polls it; the page takes its updates.
 */
export function useShownTask(loaded: ClientTask | null) {
  const [current, setCurrent] = useState<ClientTask | null>(loaded)
  useEffect(() => {
    const onUpdate = (event: Event) => {
      const task = (event as CustomEvent<ClientTask>).detail
      setCurrent((shown) => (shown?.id === task.id ? { ...shown, ...task } : shown))
    }
    window.addEventListener(TASK_UPDATED_EVENT, onUpdate)
    return () => window.removeEventListener(TASK_UPDATED_EVENT, onUpdate)
  }, [])
  return [current, setCurrent] as const
}

/** An object URL previewing the chosen file; the previous one is revoked when it changes or the page leaves. */
export function useFilePreview() {
  const [preview, setPreview] = useState<string | null>(null)
  useEffect(() => {
    if (preview) return () => URL.revokeObjectURL(preview)
  }, [preview])
  const show = (file: File | null | undefined) => setPreview(file ? URL.createObjectURL(file) : null)
  return [preview, show] as const
}

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

/** The drop area of a file input: the chosen photo's preview, or what to choose. */
export function PhotoDrop(props: {
  inputId: string
  label: string
  preview: string | null
  alt: string
  hint: ReactNode
}) {
  return (
    <label className="photo-drop" htmlFor={props.inputId}>
      <span className="visually-hidden">{props.label}</span>
      {props.preview ? <img src={props.preview} alt={props.alt} /> : <span className="muted">{props.hint}</span>}
    </label>
  )
}

interface TaskResultPanelProps {
  task: ClientTask | null
  /** Shown before any task. */
  placeholder: string
  genericFailure: string
  /** The task's own output (image or video, progress, links) below its status. */
  children: (task: ClientTask) => ReactNode
}

/** The result panel: the task's status, a failure's message, then what the page shows of it. */
export function TaskResultPanel({ task, placeholder, genericFailure, children }: TaskResultPanelProps) {
  return (
    <section className="card generate-result" aria-live="polite">
      <h2>Result</h2>
      {!task ? (
        <p className="muted">{placeholder}</p>
      ) : (
        <>
          <p className="generate-status" data-status={task.status}>
            {taskStatusText(task)}
          </p>
          {task.status === 'failed' ? (
            <p className="form-error">{task.error ?? genericFailure} Your credits have been refunded.</p>
          ) : null}
          {children(task)}
        </>
      )}
    </section>
  )
}

/** A queued or running task's progress; without JavaScript, a link that reloads `page` with the task's state. */
export function TaskProgress({ task, page }: { task: ClientTask; page: string }) {
  return (
    <>
      <progress max={100} value={task.progress} aria-label="Progress" />
      <noscript>
        <p>
          <a href={`${page}?task=${task.id}`}>Refresh the status</a>
        </p>
      </noscript>
    </>
  )
}

interface PurchaseDialogProps {
  title: string
  message: string
  /** The Close link's target (this page: also closes the dialog of a submission without JavaScript). */
  closeTo: string
  onClose?: () => void
  /** Shown below the message. */
  children?: ReactNode
}

export function PurchaseDialog({ title, message, closeTo, onClose, children }: PurchaseDialogProps) {
  return (
    <div className="modal-backdrop">
      <div className="modal" role="dialog" aria-modal="true" aria-labelledby="purchase-title">
        <h2 id="purchase-title">{title}</h2>
        <p>{message}</p>
        {children}
        <div className="row">
          <Link to="/purchase-credits" className="button">
            Purchase Credits
          </Link>
          <Link to={closeTo} className="button secondary" onClick={onClose}>
            Close
          </Link>
        </div>
      </div>
    </div>
  )
}

export function ErrorDialog({ message, onClose }: { message: string; onClose: () => void }) {
  return (
    <div className="modal-backdrop">
      <div className="modal" role="alertdialog" aria-modal="true" aria-labelledby="error-title">
        <h2 id="error-title">Error</h2>
        <p>{message}</p>
        <button type="button" className="button" onClick={onClose} autoFocus>
          OK
        </button>
      </div>
    </div>
  )
}
