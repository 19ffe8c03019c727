import { NoData } from '#app/analytics/no-data.tsx'

/** The spec's eight colours, used in turn. */
const colours = ['#c4543a', '#2f6fb0', '#3a9d5d', '#d49a1e', '#7a4cb3', '#1f9aa8', '#c2407d', '#6b615b']

export function PaymentMethods({ methods }: { methods: Array<{ method: string; count: number }> }) {
  if (methods.length === 0) return <NoData />
  const busiest = Math.max(...methods.map((entry) => entry.count))
  return (
    <ul className="payment-methods">
      {methods.map((entry, index) => {
        const colour = colours[index % colours.length]
        return (
          <li key={entry.method}>
            {/* SVGs: colours and lengths as attributes, as the Content-Security-Policy refuses inline styles. */}
            <svg className="swatch" viewBox="0 0 14 14" aria-hidden>
              <rect width={14} height={14} rx={3} fill={colour} />
            </svg>
            <span className="method-name">{entry.method}</span>
            <svg className="method-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden>
              <rect width={(entry.count / busiest) * 100} height={10} fill={colour} />
            </svg>
            <strong className="method-count">{entry.count}</strong>
          </li>
        )
      })}
    </ul>
  )
}
