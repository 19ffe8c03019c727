import { Bar, BarChart, CartesianGrid, LabelList, Tooltip, XAxis, YAxis } from 'recharts'
import { useHydrated } from '#app/hooks/use-hydrated.ts'

type Day = { date: string; count: number }

const CHART_HEIGHT = 300
const MIN_CHART_WIDTH = 900
const MIN_BAR_SLOT = 28
// Count labels on top of the bars stay readable up to about a month of bars.
const MAX_LABELLED_BARS = 31

const shortDate = (date: string) => date.slice(5)

/**
 * Image generations per day. Recharts 3 renders nothing on the server (its layout runs in effects),
 * so the server and the first client render show the same bars in plain HTML, and recharts takes
 * over once the page is hydrated. Both have a fixed size: ResponsiveContainer measures in the browser.
 */
export function GenerationChart({ days }: { days: Day[] }) {
  const hydrated = useHydrated()
  const width = Math.max(MIN_CHART_WIDTH, days.length * MIN_BAR_SLOT)
  return (
    <div className="chart-scroll">
      {hydrated ? (
        <BarChart width={width} height={CHART_HEIGHT} data={days} margin={{ top: 24, right: 16, bottom: 8, left: 0 }}>
          <CartesianGrid vertical={false} strokeDasharray="3 3" />
          <XAxis dataKey="date" tickFormatter={shortDate} />
          <YAxis allowDecimals={false} />
          <Tooltip />
          <Bar dataKey="count" name="Image generations" fill="#c4543a" isAnimationActive={false}>
            {days.length <= MAX_LABELLED_BARS ? <LabelList dataKey="count" position="top" /> : null}
          </Bar>
        </BarChart>
      ) : (
        <HtmlBars days={days} width={width} />
      )}
    </div>
  )
}

function HtmlBars({ days, width }: { days: Day[]; width: number }) {
  const busiest = Math.max(1, ...days.map((day) => day.count))
  return (
    <ol className="html-bars" style={{ width, height: CHART_HEIGHT }}>
      {days.map((day) => (
        <li key={day.date} title={`${day.date}: ${day.count}`}>
          <span className="html-bar-track">
            <span className="html-bar-count">{day.count}</span>
            {/* 90% at most leaves room for the count above the busiest day's bar. */}
            <span className="html-bar" style={{ height: `${(day.count / busiest) * 90}%` }} />
          </span>
          <span className="html-bar-date">{shortDate(day.date)}</span>
        </li>
      ))}
    </ol>
  )
}
