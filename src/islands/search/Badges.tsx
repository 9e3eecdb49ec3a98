/**
 * The small format and status badges of the search results, in the colours of
 * `lib/domain/constants.ts`. Each pair is one the dark theme turns around together (both shades
 * remapped, or neither), so the text stays readable in light and dark; classes are written out in
 * full because Tailwind only generates whole words it finds in the source.
 */
import { ASSET_STATUSES, ASSET_TYPES, type AssetType } from '../../lib/domain/constants.ts';
import { langOf } from '../../lib/i18n/english.ts';

type Colour = (typeof ASSET_TYPES)[AssetType]['colour'] | (typeof ASSET_STATUSES)[keyof typeof ASSET_STATUSES]['colour'];

const COLOUR_CLASSES: Record<Colour, string> = {
  amber: 'bg-amber-50 text-amber-900 ring-amber-900/20',
  emerald: 'bg-emerald-50 text-emerald-900 ring-emerald-900/20',
  rose: 'bg-rose-50 text-rose-900 ring-rose-900/20',
  slate: 'bg-slate-100 text-slate-700 ring-slate-700/20',
  green: 'bg-green-100 text-green-800 ring-green-800/20',
  sky: 'bg-sky-100 text-sky-800 ring-sky-800/20',
  violet: 'bg-violet-100 text-violet-800 ring-violet-800/20',
};

const BASE = 'inline-flex items-center rounded-full px-1.5 py-0.5 text-[11px] font-medium leading-none ring-1 ring-inset whitespace-nowrap';

export function FormatBadge({ type }: { type: AssetType }) {
  const { label, colour } = ASSET_TYPES[type];
  return <span className={`${BASE} ${COLOUR_CLASSES[colour]}`}>{label}</span>;
}

export function StatusBadge({ status, labels }: { status: string; labels: Record<string, string> }) {
  const colour: Colour = status in ASSET_STATUSES ? ASSET_STATUSES[status as keyof typeof ASSET_STATUSES].colour : 'slate';
  return (
    <span className={`${BASE} ${COLOUR_CLASSES[colour]}`} data-status={status} lang={status in ASSET_STATUSES ? langOf(ASSET_STATUSES[status as keyof typeof ASSET_STATUSES].labelKey) : undefined}>
      {labels[status] ?? status}
    </span>
  );
}
