/**
 * Records as the search modal lists them: title, format and status badges, department or date.
 * Each is a link to its record's page (issue #20: a record without a file has one too), so every
 * result is reachable by Tab and opens with Enter.
 */
import type { FoundAsset } from '../../lib/api/search.ts';
import { formatDate } from '../../lib/format.ts';
import { recordPath } from '../../lib/paths.ts';
import { FormatBadge, StatusBadge } from './Badges.tsx';

interface AssetListProps {
  assets: FoundAsset[];
  statusLabels: Record<string, string>;
  /** Said of a record that has no file yet (its page says what is known of it). */
  noCid: string;
  /** The upload date instead of the department (the wallet's own uploads). */
  showDate?: boolean;
}

export function AssetList({ assets, statusLabels, noCid, showDate = false }: AssetListProps) {
  return (
    <ul className="mt-2 divide-y divide-slate-100 overflow-hidden rounded-xl border border-slate-200 bg-white">
      {assets.map((asset) => {
        const detail = showDate ? formatDate(asset.createdAt) : asset.department?.name;
        const body = (
          <>
            <span className="line-clamp-2 font-medium text-slate-900">{asset.title}</span>
            <span className="mt-1 flex flex-wrap items-center gap-1.5 text-xs text-slate-500">
              <FormatBadge type={asset.type} />
              <StatusBadge status={asset.status} labels={statusLabels} />
              {detail && <span className="min-w-0 truncate">{detail}</span>}
              {!asset.cid && <span className="italic">{noCid}</span>}
            </span>
          </>
        );
        return (
          <li key={asset.id} data-asset={asset.id}>
            <a href={recordPath(asset)} className="block px-3 py-2.5 hover:bg-indigo-50">{body}</a>
          </li>
        );
      })}
    </ul>
  );
}
