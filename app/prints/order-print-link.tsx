/** "Order a print" of one finished version: a plain link to its order page (issue 39). */
export function OrderPrintLink({ taskId, index }: { taskId: string; index: number }) {
  return (
    <a className="button secondary" href={`/prints/order?${new URLSearchParams({ taskId, index: String(index) })}`}>
      Order a print
    </a>
  )
}
