import { Link } from '@remix-run/react'
import type { ReactNode } from 'react'
import type { GenerationDialog, Generator } from '#app/generation/generation-request.ts'

interface PurchaseDialogProps {
  title: string
  message: string
  /** The Close link's target (this page: also closes the dialog of a submission without JavaScript). */
  closeTo: string
  onClose?: () => void
  /** Shown below the message. */
  children?: ReactNode
}

function PurchaseDialog({ title, message, closeTo, onClose, children }: PurchaseDialogProps) {
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

function ErrorDialog({ message, onClose }: { message: string; onClose: () => void }) {
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

interface GenerationDialogsProps {
  dialog: GenerationDialog | null
  generator: Generator
  onClose?: () => void
}

/** The insufficient-credits dialog, or the error dialog, of a submission. */
export function GenerationDialogs({ dialog, generator, onClose = () => {} }: GenerationDialogsProps) {
  if (dialog?.kind === 'purchase') {
    return (
      <PurchaseDialog
        title={generator.purchaseTitle}
        message={dialog.message}
        closeTo={generator.page}
        onClose={onClose}
      >
        {generator.purchaseNote}
      </PurchaseDialog>
    )
  }
  if (dialog?.kind === 'error') return <ErrorDialog message={dialog.message} onClose={onClose} />
  return null
}
