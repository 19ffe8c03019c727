import { json, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { seo } from '#app/document/seo.ts'
import { readForm } from '#app/utils/form-body.server.ts'
import { HttpError } from '#domain/http-error.server.ts'
import { requireUser } from '#domain/permissions/permissions.server.ts'
import { printOptions } from '#domain/prints/print-options.server.ts'
import { placeOrder } from '#domain/prints/print-orders.server.ts'
import { createQuote, findQuoteView } from '#domain/prints/print-quotes.server.ts'
import { SHIPPING_METHODS, DELIVERY_ESTIMATES } from '#domain/prints/print-pricing.ts'
import { getDb } from '#platform/db.server.ts'

/**
 * /prints/order?taskId=…&index=n: "Order a print" of a finished version (issue 39). Two plain forms,
 * so it works without JavaScript and on a phone: the product, its wrap or frame, copies, shipping,
 * country and where the picture sits give a price and a mockup (a quote, kept 30 minutes, in the
 * URL); the recipient and address then place the order, paid in credits.
 */

export const meta: MetaFunction = () =>
  seo({ title: 'Order a print', description: 'A canvas, a framed print or a poster of your portrait.' })

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request)
  const url = new URL(request.url)
  const taskId = url.searchParams.get('taskId') ?? ''
  const index = Number(url.searchParams.get('index') ?? '0')
  const quoteId = url.searchParams.get('quoteId')
  const quote = quoteId ? await findQuoteView(getDb(), user.id, quoteId) : null
  try {
    const options = await printOptions(getDb(), user.id, taskId, Number.isInteger(index) ? index : 0)
    return json({ taskId, index, options, quote, credits: user.credits, problem: null as string | null })
  } catch (error) {
    if (!(error instanceof HttpError) || error.status === 503) throw error
    return json({ taskId, index, options: null, quote: null, credits: user.credits, problem: error.message })
  }
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request)
  const form = await readForm(request)
  const field = (name: string) => String(form.get(name) ?? '')
  try {
    if (field('intent') === 'order') {
      await placeOrder(getDb(), user.id, {
        quoteId: field('quoteId'),
        recipient: {
          name: field('name'),
          email: field('email'),
          phone: field('phone'),
          address: {
            line1: field('line1'),
            line2: field('line2'),
            townOrCity: field('townOrCity'),
            stateOrCounty: field('stateOrCounty'),
            postalOrZipCode: field('postalOrZipCode'),
            countryCode: field('countryCode'),
          },
        },
      })
      return redirect('/orders?placed=1')
    }
    // The choice is sent as `wrap:ImageWrap` or `color:black`: one field for every product.
    const [attribute, value] = field('choice').split(':')
    const quote = await createQuote(getDb(), user.id, {
      taskId: field('taskId'),
      index: field('index'),
      sku: field('sku'),
      attributes: attribute && value ? { [attribute]: value } : {},
      copies: field('copies') || '1',
      countryCode: field('countryCode'),
      shippingMethod: field('shippingMethod'),
      crop: { x: Number(field('cropX') || 50) / 100, y: Number(field('cropY') || 50) / 100 },
    })
    const next = new URLSearchParams({ taskId: field('taskId'), index: field('index'), quoteId: quote.quoteId })
    return redirect(`/prints/order?${next}#price`)
  } catch (error) {
    if (error instanceof HttpError) {
      return json(
        { error: error.message, field: error.field ?? null },
        { status: error.status, headers: error.headers },
      )
    }
    throw error
  }
}

const countryNames = new Intl.DisplayNames(['en'], { type: 'region' })
const countryName = (code: string) => {
  try {
    return countryNames.of(code) ?? code
  } catch {
    return code
  }
}

export default function OrderPrint() {
  const { taskId, index, options, quote, credits, problem } = useLoaderData<typeof loader>()
  const failure = useActionData<typeof action>()
  const busy = useNavigation().state !== 'idle'
  if (problem || !options) {
    return (
      <section className="card prints">
        <h1>Order a print</h1>
        <p className="form-error" role="alert">
          {problem}
        </p>
      </section>
    )
  }
  if (!options.available) {
    return (
      <section className="card prints">
        <h1>Order a print</h1>
        <p data-prints="unavailable">{options.message}</p>
      </section>
    )
  }
  const countries = [...new Set(options.products.flatMap((p) => p.shipsTo))].sort()
  const chosenSku = quote?.product.sku ?? options.products.find((p) => p.available)?.sku
  const chosenChoice = quote ? Object.entries(quote.product.attributes).map(([k, v]) => `${k}:${v}`)[0] : undefined
  return (
    <section className="card prints">
      <h1>Order a print</h1>
      <p className="muted">
        A canvas, a framed print or a poster of your portrait, made and shipped by our print lab and paid in credits.
        You have {credits} credits.
      </p>
      {failure ? (
        <p className="form-error" role="alert" data-field={failure.field ?? undefined}>
          {failure.error}
        </p>
      ) : null}
      <Form method="post" className="print-options">
        <input type="hidden" name="intent" value="quote" />
        <input type="hidden" name="taskId" value={taskId} />
        <input type="hidden" name="index" value={index} />
        <fieldset>
          <legend>Product and size</legend>
          <ul className="print-products">
            {options.products.map((product) => (
              <li key={product.sku} className={product.available ? undefined : 'disabled'}>
                <label>
                  <input
                    type="radio"
                    name="sku"
                    value={product.sku}
                    disabled={!product.available}
                    defaultChecked={product.sku === chosenSku}
                  />{' '}
                  {product.label}
                </label>
                {product.reason ? <span className="muted"> {product.reason}</span> : null}
              </li>
            ))}
          </ul>
        </fieldset>
        <div className="field">
          <label htmlFor="choice">Wrap (canvas) or frame (framed print)</label>
          <select id="choice" name="choice" defaultValue={chosenChoice ?? 'wrap:ImageWrap'}>
            <option value="">None (poster)</option>
            {choicesOf(options.products).map(([attribute, value]) => (
              <option key={`${attribute}:${value}`} value={`${attribute}:${value}`}>
                {attribute === 'wrap' ? `Canvas wrap: ${value}` : `Frame: ${value}`}
              </option>
            ))}
          </select>
        </div>
        <div className="print-row">
          <div className="field">
            <label htmlFor="copies">Copies</label>
            <input id="copies" name="copies" type="number" min={1} max={10} defaultValue={quote?.copies ?? 1} />
          </div>
          <div className="field">
            <label htmlFor="shippingMethod">Shipping</label>
            <select id="shippingMethod" name="shippingMethod" defaultValue={quote?.shippingMethod ?? 'Standard'}>
              {SHIPPING_METHODS.map((method) => (
                <option key={method} value={method}>
                  {method} ({DELIVERY_ESTIMATES[method]})
                </option>
              ))}
            </select>
          </div>
        </div>
        <div className="field">
          <label htmlFor="countryCode">Deliver to</label>
          <select id="countryCode" name="countryCode" defaultValue={quote?.countryCode ?? 'GB'}>
            {countries.map((code) => (
              <option key={code} value={code}>
                {countryName(code)}
              </option>
            ))}
          </select>
        </div>
        <fieldset>
          <legend>Move the picture inside the print</legend>
          <div className="print-row">
            <div className="field">
              <label htmlFor="cropX">Left ↔ right</label>
              <input
                id="cropX"
                name="cropX"
                type="range"
                min={0}
                max={100}
                defaultValue={Math.round((quote?.crop.x ?? 0.5) * 100)}
              />
            </div>
            <div className="field">
              <label htmlFor="cropY">Top ↕ bottom</label>
              <input
                id="cropY"
                name="cropY"
                type="range"
                min={0}
                max={100}
                defaultValue={Math.round((quote?.crop.y ?? 0.5) * 100)}
              />
            </div>
          </div>
        </fieldset>
        <button type="submit" className="button secondary" disabled={busy}>
          {quote ? 'Update the price and preview' : 'See the price and preview'}
        </button>
      </Form>

      {quote ? (
        <div id="price" className="print-quote">
          <img src={quote.mockupUrl} alt={`Preview of the ${quote.product.label}`} className="print-mockup" />
          <p className="print-price" data-credits={quote.credits}>
            <strong>{quote.credits} credits</strong> for {quote.copies > 1 ? `${quote.copies} × ` : ''}
            {quote.product.label}, {quote.shippingMethod.toLowerCase()} shipping to {countryName(quote.countryCode)}.
          </p>
          <p className="muted">
            Delivery estimate: {quote.delivery}. This price holds until{' '}
            {new Date(quote.expiresAt).toLocaleTimeString('en-GB', {
              hour: '2-digit',
              minute: '2-digit',
              timeZone: 'UTC',
            })}{' '}
            UTC.
          </p>
          <Form method="post" className="print-recipient">
            <input type="hidden" name="intent" value="order" />
            <input type="hidden" name="quoteId" value={quote.quoteId} />
            <input type="hidden" name="countryCode" value={quote.countryCode} />
            <h2>Deliver to</h2>
            <TextInput name="name" label="Recipient name" autoComplete="name" required />
            <TextInput name="email" label="Email" type="email" autoComplete="email" required />
            <TextInput name="phone" label="Phone" type="tel" autoComplete="tel" />
            <TextInput name="line1" label="Address line 1" autoComplete="address-line1" required />
            <TextInput name="line2" label="Address line 2" autoComplete="address-line2" />
            <TextInput name="townOrCity" label="Town or city" autoComplete="address-level2" required />
            <TextInput name="stateOrCounty" label="State or county" autoComplete="address-level1" />
            <TextInput name="postalOrZipCode" label="Postcode" autoComplete="postal-code" required />
            <p className="muted">Country: {countryName(quote.countryCode)} (change it above for a new price)</p>
            <button type="submit" className="button" disabled={busy}>
              Order for {quote.credits} credits
            </button>
          </Form>
        </div>
      ) : null}
      <p>
        <Link to="/orders">My print orders</Link>
      </p>
    </section>
  )
}

function choicesOf(products: { attributes: Partial<Record<'wrap' | 'color', string[]>> }[]) {
  const pairs = new Set<string>()
  for (const product of products) {
    for (const [attribute, values] of Object.entries(product.attributes)) {
      for (const value of values ?? []) pairs.add(`${attribute}:${value}`)
    }
  }
  return [...pairs].map((pair) => pair.split(':') as [string, string])
}

function TextInput(props: { name: string; label: string; type?: string; autoComplete?: string; required?: boolean }) {
  return (
    <div className="field">
      <label htmlFor={props.name}>{props.label}</label>
      <input
        id={props.name}
        name={props.name}
        type={props.type ?? 'text'}
        autoComplete={props.autoComplete}
        required={props.required}
      />
    </div>
  )
}
