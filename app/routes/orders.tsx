import { json, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react'
import { seo } from '#app/document/seo.ts'
import { readForm } from '#app/utils/form-body.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { cancelOrder, listOrders } from '#domain/prints/print-orders.server.ts'
import { getDb } from '#platform/db.server.ts'

/** /orders: the user's print orders with their mockup, status, tracking links and a Cancel button (issue 39). */

export const meta: MetaFunction = () =>
  seo({ title: 'My print orders', description: 'Your canvases, framed prints and posters.' })

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request)
  return json({ orders: await listOrders(getDb(), user.id), placed: new URL(request.url).searchParams.has('placed') })
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request)
  const form = await readForm(request)
  try {
    await cancelOrder(getDb(), user.id, String(form.get('orderId') ?? ''))
    return redirect('/orders')
  } catch (error) {
    if (error instanceof HttpError)
      return json({ error: error.message }, { status: error.status, headers: error.headers })
    throw error
  }
}

const CANCELLABLE = new Set(['submitted', 'at_lab'])

export default function PrintOrders() {
  const { orders, placed } = useLoaderData<typeof loader>()
  const failure = useActionData<typeof action>()
  return (
    <section className="card prints">
      <h1>My print orders</h1>
      {placed ? (
        <p className="form-success" role="status">
          Thank you: your order is paid and on its way to the print lab.
        </p>
      ) : null}
      {failure ? (
        <p className="form-error" role="alert">
          {failure.error}
        </p>
      ) : null}
      {orders.length === 0 ? (
        <p>
          No print orders yet. Choose a finished portrait in <Link to="/history">My Resources</Link> and order a print.
        </p>
      ) : (
        <ul className="print-orders">
          {orders.map((order) => (
            <li key={order.id} className="print-order" data-order={order.id} data-status={order.status}>
              {order.mockupUrl ? (
                <img src={order.mockupUrl} alt={`Preview of the ${order.product.label}`} width={120} />
              ) : null}
              <div>
                <h2>
                  {order.product.label}
                  {order.copies > 1 ? ` × ${order.copies}` : ''}
                </h2>
                <p>
                  <strong className="print-status">{order.statusText}</strong> · {order.credits} credits ·{' '}
                  {new Date(order.createdAt).toLocaleDateString('en-GB', { timeZone: 'UTC' })}
                </p>
                {order.problem ? (
                  <p className="muted">
                    {order.problem}
                    {order.refunded ? ' · refunded' : ''}
                  </p>
                ) : null}
                {order.shipments
                  .filter((s) => s.trackingUrl || s.trackingNumber)
                  .map((shipment) => (
                    <p key={shipment.trackingNumber ?? shipment.trackingUrl}>
                      {shipment.carrier ?? 'Carrier'}:{' '}
                      {shipment.trackingUrl ? (
                        <a
                          href={shipment.trackingUrl}
                          rel="noreferrer noopener"
                          target="_blank"
                          className="print-tracking"
                        >
                          Track {shipment.trackingNumber ?? 'the parcel'}
                        </a>
                      ) : (
                        shipment.trackingNumber
                      )}
                    </p>
                  ))}
                {CANCELLABLE.has(order.status) ? (
                  <Form method="post">
                    <input type="hidden" name="orderId" value={order.id} />
                    <button type="submit" className="button secondary">
                      Cancel the order
                    </button>
                  </Form>
                ) : null}
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
