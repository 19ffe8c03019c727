import { useActionData } from '@remix-run/react'
import { Fragment, useState, type ReactNode } from 'react'
import { GenerationPurchaseDialog } from '#app/generation/purchase-dialog.tsx'
import type { GenerationActionData } from '#app/generation/generation-forms.server.ts'
import {
  purchaseDialogOf,
  type GenerationDialog,
  type Generator,
  type TaskFollow,
} from '#app/generation/generation-request.ts'
import { TaskResultPanel } from '#app/generation/result-panel.tsx'
import { useShownTask } from '#app/generation/task-store-context.tsx'
import type { ClientTask } from '#domain/generation/task-view.ts'

interface GeneratorShellProps {
  generator: Generator
  /** The task the loader found (after a submission without JavaScript). */
  loadedTask: ClientTask | null
  className: string
  title: string
  /** Says that the offline renderer makes the results, when it does. */
  offlineNotice: string | null
  /** The page's form; starting over remounts it, which clears every input and its state. */
  form: (follow: TaskFollow) => ReactNode
  /** The result panel's text before any task. */
  placeholder: string
  /** What the result panel shows of a task below its status. */
  result: (task: ClientTask, startOver: () => void) => ReactNode
  /** Cards in one column with the result panel, below it. */
  aside?: ReactNode
}

/**
 * A generator page: the form, the result panel following the task shown (the one the loader found,
 * then the one submitted) as the task store hears of it, and the purchase dialog.
 */
export function GeneratorShell(props: GeneratorShellProps) {
  const { generator, form, result, aside } = props
  const answer = useActionData<GenerationActionData>()
  const [current, setCurrent] = useShownTask(props.loadedTask)
  // A submission without JavaScript that lacked credits opens the page with the purchase dialog.
  const [dialog, setDialog] = useState<GenerationDialog | null>(() => purchaseDialogOf(answer))
  const [formKey, setFormKey] = useState(0)

  function startOver() {
    setCurrent(null)
    setFormKey((key) => key + 1)
  }

  const panel = (
    <TaskResultPanel task={current} placeholder={props.placeholder} genericFailure={generator.genericFailure}>
      {(task) => result(task, startOver)}
    </TaskResultPanel>
  )
  return (
    <div className={props.className}>
      <section className="card generate-form">
        <h1>{props.title}</h1>
        {props.offlineNotice ? (
          <p className="generate-notice" role="note">
            {props.offlineNotice}
          </p>
        ) : null}
        <Fragment key={formKey}>{form({ onSubmitted: setCurrent, onDialog: setDialog })}</Fragment>
      </section>
      {aside ? (
        <aside className="generator-side">
          {panel}
          {aside}
        </aside>
      ) : (
        panel
      )}
      <GenerationPurchaseDialog dialog={dialog} generator={generator} onClose={() => setDialog(null)} />
    </div>
  )
}
