/**
 * The browser's calls for contributing (SPEC §7): searching sources and issuers for the wizard,
 * the upload's nonce, and the upload itself, sent with XMLHttpRequest because fetch cannot report
 * how much of a large file has gone out.
 */
import { UPLOAD_FIELDS } from '../domain/upload.ts';
import { ApiError } from './auth.ts';

/** A source or issuer as the REST lists give them. */
export interface EntityOption {
  id: number;
  name: string;
  description: string | null;
  url: string | null;
}

interface RestItem {
  id: number;
  name: string;
  description?: string | null;
  desciption?: string | null;
  url?: string | null;
  website?: string | null;
}

/** SPEC §7: `sources/getAll?name=` and `departments/getAll?name=&limit=5`; the body is a JSON string. */
export async function searchEntities(kind: 'sources' | 'departments', name: string): Promise<EntityOption[]> {
  const query = new URLSearchParams({ name, limit: '5' });
  const response = await fetch(`/v2/open-data/${kind}/getAll?${query}`);
  if (!response.ok) throw new ApiError(String(response.status), response.statusText);
  const envelope = (await response.json()) as { body: string };
  const items = JSON.parse(envelope.body) as RestItem[];
  return items.map((item) => ({
    id: item.id,
    name: item.name,
    description: item.description ?? item.desciption ?? null,
    url: item.url ?? item.website ?? null,
  }));
}

function authHeaders(accessToken: string | null): Record<string, string> {
  return accessToken ? { Authorization: `Bearer ${accessToken}` } : {};
}

export async function fetchUploadNonce(accessToken: string | null): Promise<string> {
  const response = await fetch('/v2/ops/assets/nonce', {
    method: 'POST',
    credentials: 'same-origin',
    headers: authHeaders(accessToken),
  });
  const body = (await response.json().catch(() => ({}))) as { body?: { nonce: string }; message?: string };
  if (!response.ok || !body.body) throw new ApiError(String(response.status), body.message ?? response.statusText);
  return body.body.nonce;
}

export interface UploadRequest {
  asset: Record<string, unknown>;
  nonce: string;
  signature: string;
  document: File;
  proof: File;
  accessToken: string | null;
  /** Share of the body sent so far, 0 to 1. */
  onProgress(sent: number): void;
}

/** POST /v2/ops/assets/add: the fields first (the server checks them before any file byte), then the files. */
export function postUpload(request: UploadRequest): Promise<{ assetCID: string; assetId: number }> {
  const form = new FormData();
  form.append(UPLOAD_FIELDS.asset, JSON.stringify(request.asset));
  form.append(UPLOAD_FIELDS.nonce, request.nonce);
  form.append(UPLOAD_FIELDS.signature, request.signature);
  form.append(UPLOAD_FIELDS.proof, request.proof, request.proof.name);
  form.append(UPLOAD_FIELDS.document, request.document, request.document.name);

  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/v2/ops/assets/add');
    xhr.withCredentials = true;
    for (const [name, value] of Object.entries(authHeaders(request.accessToken))) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) request.onProgress(event.loaded / event.total);
    };
    xhr.onload = () => {
      let body: { code?: number; body?: { assetCID: string; assetId: number }; message?: string } = {};
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        // An answer that is not JSON (a proxy's error page): keep the status.
      }
      if (xhr.status === 200 && body.code === 200 && body.body) resolve(body.body);
      else reject(new ApiError(String(xhr.status), body.message ?? xhr.statusText));
    };
    xhr.onerror = () => reject(new ApiError('0', 'network'));
    xhr.send(form);
  });
}
