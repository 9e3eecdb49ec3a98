/**
 * The open API's shapes: records and groups as the original content service (Strapi v3) spelled
 * them (SPEC §3), so that the product's islands and any existing client read them unchanged.
 * `_id` repeats `id`; a department's description is `desciption`, as the original queries spelled it.
 */
import type { GroupEntity } from '../../domain/groups.ts';
import type { GroupItem } from '../queries/groups.ts';
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
  icon?: { id: string; name: string; url: string | null } | null;
  updatedAt: string;
  /** How many records the group holds, in all and per format (instead of every record's cid). */
  alexandriasCount: number;
  counts: GroupItem['byFormat'];
}

export function groupShape(entity: GroupEntity, item: GroupItem): GroupShape {
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
        icon: item.iconName ? { id: item.iconName, name: item.iconName, url: null } : null,
      };
  }
}
