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
 * so the server and the first client render show the same bars as a plain SVG, and recharts takes
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
        <PlainBars days={days} width={width} />
      )}
    </div>
  )
}

// The plain chart's layout, in pixels: room for the counts above the bars and the dates below.
const PLOT_LEFT = 32
const PLOT_TOP = 20
const PLOT_BASE = CHART_HEIGHT - 28

/**
 * An SVG, not styled HTML: its sizes are attributes, so the page needs no inline style, which the
 * Content-Security-Policy refuses (decision 0020).
 */
function PlainBars({ days, width }: { days: Day[]; width: number }) {
  const busiest = Math.max(1, ...days.map((day) => day.count))
  const slot = (width - PLOT_LEFT) / Math.max(1, days.length)
  return (
    <svg className="plain-bars" width={width} height={CHART_HEIGHT} role="img" aria-label="Image generations per day">
      {days.map((day, index) => {
        const centre = PLOT_LEFT + (index + 0.5) * slot
        const height = (day.count / busiest) * (PLOT_BASE - PLOT_TOP)
        return (
          <g key={day.date}>
            <title>{`${day.date}: ${day.count}`}</title>
            <rect x={centre - slot * 0.35} y={PLOT_BASE - height} width={slot * 0.7} height={height} rx={3} />
            <text x={centre} y={PLOT_BASE - height - 5} textAnchor="middle">
              {day.count}
            </text>
            <text x={centre} y={CHART_HEIGHT - 8} textAnchor="middle">
              {shortDate(day.date)}
            </text>
          </g>
        )
      })}
    </svg>
  )
}
