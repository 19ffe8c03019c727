import { printSentence, type PrintReadiness } from '#domain/media/print-readiness.ts'

/** How large a portrait prints: "Prints sharp up to 8×10 in (20×25 cm); good up to …". */
export function PrintNote({ print }: { print: PrintReadiness | null | undefined }) {
  if (!print) return null
  return (
    <p className="muted print-note">
      {printSentence(print)} ({print.widthPx}×{print.heightPx} px)
    </p>
  )
}
