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

interface GenerationPurchaseDialogProps {
  dialog: GenerationDialog | null
  generator: Generator
  onClose: () => void
}

/** The insufficient-credits dialog of a submission, while there is one. */
export function GenerationPurchaseDialog({ dialog, generator, onClose }: GenerationPurchaseDialogProps) {
  if (!dialog) return null
  return (
    <PurchaseDialog title={generator.purchaseTitle} message={dialog.message} closeTo={generator.page} onClose={onClose}>
      {generator.purchaseNote}
    </PurchaseDialog>
  )
}
