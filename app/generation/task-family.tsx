import { useActionData } from '@remix-run/react'
import { useId } from 'react'
import type { TaskFamilyActionData } from '#app/generation/task-family-form.server.ts'
import { FIX_NOTE_MAX_LENGTH, LIKENESS_FIX_REASONS } from '#domain/generation/likeness-fix.ts'
import type { TaskFamilyView } from '#domain/generation/task-family.server.ts'
import type { TaskStatus } from '#platform/db-schema.ts'
import type { TaskImage } from '#domain/generation/task-view.ts'
import { UpscaleForm } from './upscale-form.tsx'
import { credits } from './credits-label.ts'

/**
 * Under a finished portrait: where it came from and what was made from it (links that open each on
 * /generate), a Re-roll button and the "Doesn't look like my pet?" form. Plain forms posting to the
 * page's own action and plain links, so all of it works without JavaScript (task-family-form.server.ts).
 */

interface TaskFamilyControlsProps {
  task: { id: string; status: TaskStatus; images?: TaskImage[]; pets?: string[] }
  /** One version's cost, what a re-roll or a paid fix takes. */
  cost: number
  /** The family, when the page loaded it; else the free fixes a run includes are explained. */
  family: TaskFamilyView | null
  freeLikenessFixes: number
  /** The price of "Make it bigger". */
  upscaleCost: number
  /** The page's own action. */
  action: string
}

const statusLabels: Record<TaskStatus, string> = {
  queued: 'waiting',
  processing: 'generating',
  completed: 'completed',
  failed: 'failed',
}

const childNames = { reroll: 'Re-roll', fix: 'Likeness fix', upscale: 'Made bigger' } as const

export function TaskFamilyControls({
  task,
  cost,
  family,
  freeLikenessFixes,
  upscaleCost,
  action,
}: TaskFamilyControlsProps) {
  const answer = useActionData<TaskFamilyActionData>()
  const refusal = answer?.taskFamily?.taskId === task.id ? answer.taskFamily : null
  const noteId = useId()
  if (task.status !== 'completed' && task.status !== 'failed') return null
  const freeFix = family ? family.freeFixesLeft > 0 : null

  return (
    <div className="task-family">
      {family ? <FamilyLinks family={family} /> : null}
      {refusal ? (
        <p className="form-error" role="alert">
          {refusal.message}
          {refusal.needPurchase ? (
            <>
              {' '}
              <a href="/purchase-credits">Buy credits</a>
            </>
          ) : null}
        </p>
      ) : null}
      <form method="post" action={action} className="row">
        <input type="hidden" name="intent" value="reroll" />
        <input type="hidden" name="taskId" value={task.id} />
        <button type="submit" className="button secondary">
          Re-roll ({credits(cost)})
        </button>
      </form>
      {task.status === 'completed' ? (
        <details className="likeness-fix" open={refusal?.intent === 'fix'}>
          <summary>Doesn&apos;t look like my pet?</summary>
          <form method="post" action={action}>
            {task.pets ? (
              <fieldset>
                <legend>Which pet is off?</legend>
                <div className="likeness-reasons">
                  {task.pets.map((name, index) => (
                    <label key={index}>
                      <input type="radio" name="pet" value={index} defaultChecked={index === 0} /> {name}
                    </label>
                  ))}
                </div>
              </fieldset>
            ) : null}
            <fieldset>
              <legend>What is off?</legend>
              <div className="likeness-reasons">
                {Object.entries(LIKENESS_FIX_REASONS).map(([value, label]) => (
                  <label key={value}>
                    <input type="checkbox" name="reasons" value={value} /> {label}
                  </label>
                ))}
              </div>
            </fieldset>
            <div className="field">
              <label htmlFor={noteId}>Anything else? (optional)</label>
              <textarea id={noteId} name="note" rows={2} maxLength={FIX_NOTE_MAX_LENGTH} />
            </div>
            <input type="hidden" name="intent" value="fix" />
            <input type="hidden" name="taskId" value={task.id} />
            <p className="muted">
              {freeFix === null
                ? `Each portrait includes ${freeLikenessFixes} free ${freeLikenessFixes === 1 ? 'fix' : 'fixes'}; after that a fix costs ${credits(cost)}.`
                : freeFix
                  ? 'This fix is free: it comes with your portrait.'
                  : `This fix costs ${credits(cost)}.`}{' '}
              It goes to the front of your queue.
            </p>
            <button type="submit" className="button">
              Fix the likeness
            </button>
          </form>
        </details>
      ) : null}
      {task.status === 'completed' ? (
        <UpscaleForm task={task} cost={upscaleCost} action={action} open={refusal?.intent === 'upscale'} />
      ) : null}
    </div>
  )
}

function FamilyLinks({ family }: { family: TaskFamilyView }) {
  if (!family.parent && family.children.length === 0) return null
  // Plain links: each opens its task in a freshly loaded generator page.
  return (
    <nav className="task-family-links" aria-label="Related portraits">
      {family.parent ? (
        <p>
          Made from <a href={`/generate?task=${family.parent.id}`}>an earlier portrait</a>
        </p>
      ) : null}
      {family.children.length > 0 ? (
        <ul>
          {family.children.map((child) => (
            <li key={child.id}>
              <a href={`/generate?task=${child.id}`}>{childNames[child.kind]}</a> ({statusLabels[child.status]})
            </li>
          ))}
        </ul>
      ) : null}
    </nav>
  )
}
