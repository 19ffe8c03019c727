import { NoData } from './no-data.tsx'

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
            <span className="swatch" style={{ background: colour }} aria-hidden />
            <span className="method-name">{entry.method}</span>
            <span className="method-bar" aria-hidden>
              <span style={{ width: `${(entry.count / busiest) * 100}%`, background: colour }} />
            </span>
            <strong className="method-count">{entry.count}</strong>
          </li>
        )
      })}
    </ul>
  )
}
