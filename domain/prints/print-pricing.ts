/**
 * A print's price in credits (issue 39, item 3; decision 0042): the lab's cost of the items and of
 * shipping, times the markup (system config), at the credits' own rate of 5 USD per 100 credits,
 * rounded up to a whole credit. A cost in another currency is turned into dollars with the
 * configured table (PRINT_USD_RATES); a currency not in it cannot be priced.
 */

/** 100 credits are sold for 5 USD. */
const CREDITS_PER_USD = 100 / 5

export const SHIPPING_METHODS = ['Budget', 'Standard', 'Express'] as const
export type ShippingMethod = (typeof SHIPPING_METHODS)[number]

/**
 * Our delivery estimates: the lab's quotes carry none, so these are ours, worded as estimates
 * (production plus transit, working days).
 */
export const DELIVERY_ESTIMATES: Record<ShippingMethod, string> = {
  Budget: 'about 6 to 12 working days',
  Standard: 'about 4 to 8 working days',
  Express: 'about 2 to 4 working days',
}

export interface LabCost {
  items: { amount: string; currency: string }
  shipping: { amount: string; currency: string }
}

/** The credits a cost is sold for, or null when its currency is not in `usdRates`. */
export function creditsFor(cost: LabCost, markup: number, usdRates: Record<string, number>): number | null {
  const inUsd = (money: { amount: string; currency: string }) => {
    const rate = usdRates[money.currency.toUpperCase()]
    const amount = Number(money.amount)
    return rate === undefined || !Number.isFinite(amount) ? null : amount * rate
  }
  const items = inUsd(cost.items)
  const shipping = inUsd(cost.shipping)
  if (items === null || shipping === null) return null
  // Cents first, so that binary fractions never push an exact price up a credit.
  const cents = Math.round((items + shipping) * markup * 100 * 1e6) / 1e6
  return Math.max(1, Math.ceil((cents * CREDITS_PER_USD) / 100))
}
