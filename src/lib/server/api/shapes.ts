/**
 * The open API's shapes: records and groups as the original content service (Strapi v3) spelled
 * them (SPEC §3), so that the product's islands and any existing client read them unchanged.
 * `_id` repeats `id`; a department's description is `desciption`, as the original queries spelled it.
 */
import type { GroupEntity } from '../../domain/groups.ts';
import { storageStatusLabel } from '../../domain/storage.ts';
import type { GroupItem } from '../queries/groups.ts';
import type { ImportRow } from '../queries/imports.ts';
import type { RecordDetail } from '../queries/records.ts';

export interface AssetShape {
  id: number;
  _id: number;
  cid: string | null;
  title: string;
  description: string | null;
  type: string;
  status: string;
  website: string | null;
  source_url: string | null;
  original_url: string | null;
  api_endpoint: string | null;
  api_enabled: boolean;
  file: { id: string; url: string; name: string | null; mime: string | null; size: number | null } | null;
  proof: { id: number; url: string } | null;
  aletheias: Array<{ id: number; proof: { id: number; url: string } }>;
  category: { id: number; title: string } | null;
  department: { id: number; name: string; desciption: string | null; website: string | null } | null;
  source: { id: number; name: string; url: string } | null;
  wallet_address: string | null;
  /** The contributor's signed confirmation (fixed sentence, both files' SHA-256, nonce) and signature. */
  signed_message: string | null;
  signature: string | null;
  import: number | null;
  deals: Array<{ dealId: string; storageProvider: string }>;
  createdAt: string;
  updatedAt: string;
}

const gatewayUrl = (origin: string, cid: string) => `${origin}/ipfs/${cid}`;

export function assetShape(record: RecordDetail, origin: string): AssetShape {
  const proofs = record.aletheias.map((proof) => ({ id: proof.id, proof: { id: proof.id, url: gatewayUrl(origin, proof.cid) } }));
  return {
    id: record.id,
    _id: record.id,
    cid: record.cid,
    title: record.title,
    description: record.description,
    type: record.type,
    status: record.status,
    website: record.sourceUrl,
    source_url: record.sourceUrl,
    original_url: record.originalUrl,
    api_endpoint: record.apiEndpoint,
    api_enabled: record.apiEnabled,
    file: record.cid
      ? { id: record.cid, url: gatewayUrl(origin, record.cid), name: record.fileName, mime: record.mimeType, size: record.fileSize }
      : null,
    proof: proofs[0]?.proof ?? null,
    aletheias: proofs,
    category: record.category,
    department: record.department
      ? { id: record.department.id, name: record.department.name, desciption: record.department.desciption, website: record.department.website }
      : null,
    source: record.source,
    wallet_address: record.walletAddress,
    signed_message: record.signedMessage,
    signature: record.signature,
    import: record.importId,
    // Deals are served by /v1/services/filecoin/{cid}; a list row does not repeat them.
    deals: [],
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}

export interface GroupShape {
  id: number;
  _id: number;
  name?: string;
  title?: string;
  description?: string | null;
  desciption?: string | null;
  url?: string | null;
  website?: string | null;
  acronym?: string | null;
  icon?: CategoryIcon;
  updatedAt: string;
  /** How many records the group holds, in all and per format (instead of every record's cid). */
  alexandriasCount: number;
  counts: GroupItem['byFormat'];
}

/**
 * The icons the archive serves for categories (public/icons/categories/{name}.svg), one per
 * category of the seeded catalogue plus the folder that any other category shows.
 */
export const CATEGORY_ICON_NAMES = ['building', 'users', 'chart', 'heart', 'book', 'map', 'leaf', 'cpu', 'scale', 'ballot', 'globe', 'folder'] as const;
const FALLBACK_ICON = 'folder';

export interface CategoryIcon {
  id: string;
  name: string;
  url: string;
}

/** A category's icon as the original's `icon { id name url }`: its own if the archive has it, else the folder. */
export function categoryIcon(iconName: string | null, origin: string): CategoryIcon {
  const name = iconName && (CATEGORY_ICON_NAMES as readonly string[]).includes(iconName) ? iconName : FALLBACK_ICON;
  return { id: name, name: `${name}.svg`, url: `${origin}/icons/categories/${name}.svg` };
}

/** A pin's status spelled as the original's storage provider answered it (`Pinned`), which SPEC §4's rule compares against. */
export function pinStatusShape(status: string): string {
  return storageStatusLabel([{ status, updatedAt: new Date(0) }]);
}

/** `origin` is the archive's public origin, which the category icons' URLs are built on. */
export function groupShape(entity: GroupEntity, item: GroupItem, origin: string): GroupShape {
  const common = {
    id: item.id,
    _id: item.id,
    updatedAt: item.updatedAt.toISOString(),
    alexandriasCount: item.records,
    counts: item.byFormat,
  };
  switch (entity) {
    case 'src':
      return { ...common, name: item.name, description: item.description, url: item.url, website: item.url };
    case 'dep':
      return { ...common, name: item.name, desciption: item.description, website: item.url, url: item.url, acronym: item.acronym };
    case 'cat':
      return {
        ...common,
        title: item.name,
        description: item.description,
        icon: categoryIcon(item.iconName, origin),
      };
  }
}

/**
 * An import (harvest, upload or batch) as the original read it: `source` a plain value, the
 * source's name, and `wallet` a text; both are empty rather than null when there is none, since
 * the original showed them as they came (a null wallet read "null" on its timeline).
 */
export interface ImportShape {
  id: number;
  _id: number;
  type: string;
  status: string;
  documents: number;
  documents_failed: number;
  wallet: string;
  source: string;
  /** The source's id, to reach it as a group (`/sources/{id}`, GraphQL `sourceGroup`). */
  source_id: number | null;
  createdAt: string;
  updatedAt: string;
}

export function importShape(row: ImportRow): ImportShape {
  return {
    id: row.id,
    _id: row.id,
    type: row.type,
    status: row.status,
    documents: row.documents,
    documents_failed: row.documentsFailed,
    wallet: row.walletAddress ?? '',
    source: row.source?.name ?? '',
    source_id: row.source?.id ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
