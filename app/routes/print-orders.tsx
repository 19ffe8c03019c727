import { json, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, useActionData, useLoaderData } from '@remix-run/react'
import { AccessDenied } from '#app/components/access-denied.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { seo } from '#app/document/seo.ts'
import { readForm } from '#app/utils/form-body.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import { curatedProductSchema, listCuratedProducts, saveCuratedProduct } from '#domain/prints/print-catalogue.server.ts'
import { parseInput } from '#domain/prints/print-input.ts'
import { retrySubmission } from '#domain/prints/print-lab-orders.server.ts'
import { listAllOrders } from '#domain/prints/print-orders.server.ts'
import { getDb } from '#platform/db.server.ts'

/**
 * /print-orders (superadmins): every print order with its status, the lab's order id and issues,
 * a retry for a submission that ran out of attempts (same idempotency key: never a second order),
 * and the curated catalogue (each size a lab SKU, its wraps or frame colours, offered or not).
 */

export const meta: MetaFunction = () =>
  seo({ title: 'Print orders', description: 'Print orders and the print catalogue.' })

export async function loader({ request }: LoaderFunctionArgs) {
  await requirePermission(request, 'managePrintOrders')
  const [orders, products] = await Promise.all([
    listAllOrders(getDb()),
    listCuratedProducts(getDb(), { offeredOnly: false }),
  ])
  return json({ orders, products })
}

export async function action({ request }: ActionFunctionArgs) {
  await requirePermission(request, 'managePrintOrders')
  const form = await readForm(request)
  try {
    if (form.get('intent') === 'retry') {
      const retried = await retrySubmission(getDb(), String(form.get('orderId') ?? ''))
      if (!retried) return json({ error: 'Only a submission that failed can be retried' }, { status: 409 })
      return redirect('/print-orders')
    }
    const input = parseInput(curatedProductSchema, Object.fromEntries(form))
    await saveCuratedProduct(getDb(), input)
    return redirect('/print-orders#catalogue')
  } catch (error) {
    if (error instanceof HttpError) return json({ error: error.message }, { status: error.status })
    throw error
  }
}

export default function PrintOrdersAdmin() {
  const { orders, products } = useLoaderData<typeof loader>()
  const failure = useActionData<typeof action>()
  return (
    <section className="card prints">
      <h1>Print orders</h1>
      {failure ? (
        <p className="form-error" role="alert">
          {failure.error}
        </p>
      ) : null}
      <div className="table-scroll">
        <table>
          <thead>
            <tr>
              <th>Placed</th>
              <th>Customer</th>
              <th>Product</th>
              <th>Status</th>
              <th>Lab order</th>
              <th>Issues</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {orders.map((order) => (
              <tr key={order.id} data-order={order.id}>
                <td>{new Date(order.createdAt).toISOString().slice(0, 16).replace('T', ' ')}</td>
                <td>{order.email ?? 'deleted account'}</td>
                <td>
                  {order.product.label} ×{order.copies} · {order.credits} credits
                </td>
                <td>
                  {order.statusText}
                  {order.refunded ? ' · refunded' : ''}
                </td>
                <td>{order.labOrderId ?? '—'}</td>
                <td>
                  {[...order.issues.map((i) => i.errorCode), order.problem, order.lastError].filter(Boolean).join('; ')}
                </td>
                <td>
                  {order.status === 'submission_failed' ? (
                    <Form method="post">
                      <input type="hidden" name="intent" value="retry" />
                      <input type="hidden" name="orderId" value={order.id} />
                      <button type="submit" className="button secondary">
                        Retry
                      </button>
                    </Form>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <h2 id="catalogue">Catalogue</h2>
      <p className="muted">
        Each size is a lab SKU. Which sizes a portrait can be ordered at comes from the lab’s own product data.
      </p>
      {[...products, null].map((product) => (
        <Form method="post" key={product?.sku ?? 'new'} className="print-product-form">
          <input
            name="sku"
            aria-label="SKU"
            defaultValue={product?.sku}
            placeholder="GLOBAL-CAN-12X16"
            required
            readOnly={Boolean(product)}
          />
          <select name="kind" aria-label="Kind" defaultValue={product?.kind ?? 'canvas'}>
            <option value="canvas">Canvas</option>
            <option value="framed">Framed print</option>
            <option value="poster">Poster</option>
          </select>
          <input name="label" aria-label="Label" defaultValue={product?.label} placeholder="Canvas 12×16 in" required />
          <input
            name="widthIn"
            aria-label="Width (in)"
            type="number"
            min={1}
            defaultValue={product?.widthIn}
            required
          />
          <input
            name="heightIn"
            aria-label="Height (in)"
            type="number"
            min={1}
            defaultValue={product?.heightIn}
            required
          />
          <input
            name="choices"
            aria-label="Wraps or frame colours"
            defaultValue={product?.choices.join(', ')}
            placeholder="ImageWrap, MirrorWrap, Black, White"
          />
          <input name="position" aria-label="Position" type="number" min={0} defaultValue={product?.position ?? 0} />
          <label>
            <input type="checkbox" name="offered" value="on" defaultChecked={product?.offered ?? true} /> Offered
          </label>
          <button type="submit" className="button secondary">
            {product ? 'Save' : 'Add'}
          </button>
        </Form>
      ))}
    </section>
  )
}

export function ErrorBoundary() {
  return (
    <GeneralErrorBoundary
      statusHandlers={{ 403: () => <AccessDenied message="Only super administrators can see print orders." /> }}
      fallback="The print orders page could not be loaded. Please try again later."
    />
  )
}
