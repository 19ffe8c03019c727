import type { ReactNode } from 'react'

/** Outline drawings on a 24-unit grid, in the text's colour (they replace emoji, which need an emoji font). */
const drawings = {
  menu: <path d="M4 6h16M4 12h16M4 18h16" />,
  paw: (
    <g fill="currentColor" stroke="none">
      <circle cx="5.5" cy="10" r="2.2" />
      <circle cx="9.5" cy="5.5" r="2.2" />
      <circle cx="14.5" cy="5.5" r="2.2" />
      <circle cx="18.5" cy="10" r="2.2" />
      <path d="M12 11.5c-3 0-6.5 4.2-6.5 7 0 2 1.8 2.8 3.4 2.2 1.2-.4 2-.7 3.1-.7s1.9.3 3.1.7c1.6.6 3.4-.2 3.4-2.2 0-2.8-3.5-7-6.5-7z" />
    </g>
  ),
  gift: (
    <>
      <rect x="3" y="8" width="18" height="4" rx="1" />
      <path d="M5 12v8a1 1 0 0 0 1 1h12a1 1 0 0 0 1-1v-8M12 8v13" />
      <path d="M12 8C10.5 4.5 6.5 3.8 6.5 6.3 6.5 7.6 8 8 12 8zm0 0c1.5-3.5 5.5-4.2 5.5-1.7C17.5 7.6 16 8 12 8z" />
    </>
  ),
  coin: (
    <>
      <circle cx="12" cy="12" r="9" />
      <circle cx="12" cy="12" r="5.5" />
    </>
  ),
  user: (
    <>
      <circle cx="12" cy="8" r="4" />
      <path d="M4 21c0-4.2 3.6-7 8-7s8 2.8 8 7" />
    </>
  ),
  tasks: (
    <>
      <rect x="4" y="3" width="16" height="18" rx="2" />
      <path d="M8 8h8M8 12h8M8 16h5" />
    </>
  ),
  mail: (
    <>
      <rect x="3" y="5" width="18" height="14" rx="2" />
      <path d="m3.5 7 8.5 6 8.5-6" />
    </>
  ),
  bell: <path d="M6 16V11a6 6 0 0 1 12 0v5l2 2H4zM10 20a2 2 0 0 0 4 0" />,
  bellOff: (
    <>
      <path d="M6 16V11a6 6 0 0 1 9.5-4.9M18 11v5l2 2H4l2-2M10 20a2 2 0 0 0 4 0" />
      <path d="M3 3l18 18" />
    </>
  ),
  link: <path d="M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1" />,
} satisfies Record<string, ReactNode>

export type IconName = keyof typeof drawings

/**
 * An inline SVG icon, 1em square. Decorative (hidden from assistive technology) unless `label`
 * names it, for an icon that carries meaning on its own.
 */
export function Icon({ name, label, className }: { name: IconName; label?: string; className?: string }) {
  return (
    <svg
      className={className ? `icon ${className}` : 'icon'}
      viewBox="0 0 24 24"
      width="1em"
      height="1em"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      focusable="false"
      {...(label ? { role: 'img', 'aria-label': label } : { 'aria-hidden': true })}
    >
      {drawings[name]}
    </svg>
  )
}
