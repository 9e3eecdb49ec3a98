/**
 * Tailwind classes per badge colour. Written out in full (never assembled from pieces) because
 * Tailwind only generates the classes it can find as whole words in the source.
 */
export const BADGE_CLASSES = {
  amber: 'bg-amber-100 text-amber-800 ring-amber-200',
  emerald: 'bg-emerald-100 text-emerald-800 ring-emerald-200',
  rose: 'bg-rose-100 text-rose-800 ring-rose-200',
  slate: 'bg-slate-100 text-slate-700 ring-slate-200',
  green: 'bg-green-100 text-green-800 ring-green-200',
  sky: 'bg-sky-100 text-sky-800 ring-sky-200',
  red: 'bg-red-100 text-red-800 ring-red-200',
  yellow: 'bg-yellow-100 text-yellow-800 ring-yellow-200',
  blue: 'bg-blue-100 text-blue-800 ring-blue-200',
  violet: 'bg-violet-100 text-violet-800 ring-violet-200',
} as const;

export const DOT_CLASSES = {
  amber: 'bg-amber-500',
  emerald: 'bg-emerald-500',
  rose: 'bg-rose-500',
  slate: 'bg-slate-400',
} as const;

export type BadgeColourName = keyof typeof BADGE_CLASSES;

/**
 * A format's colour where it is drawn, not written: its slice or bar in a chart (for chart.js) and
 * the dot beside its name in the chart's legend, the strong shade of its badge's colour
 * (`ASSET_TYPES`), so that a format reads the same in a table and in a chart. A colour, not a
 * class: the dark theme turns Tailwind's shades around, and the chart's would no longer match.
 */
export const FORMAT_SWATCHES = {
  rose: '#e11d48',
  violet: '#7c3aed',
  green: '#16a34a',
  sky: '#0284c7',
  slate: '#94a3b8',
} as const satisfies Partial<Record<BadgeColourName, string>>;
