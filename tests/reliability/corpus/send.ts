/** Short ways for corpus cases to send their requests; each returns an `Outcome`. */
import { uploadForm, uploadHeaders } from '../support/archive-client.ts';
import { rawRequest, request } from '../support/http.ts';
import type { Form } from '../support/multipart.ts';
import type { CorpusContext, Outcome } from './types.ts';

const outcome = (answer: { status: number; body: Buffer; headers: Record<string, string | string[] | undefined>; ms: number }): Outcome => ({
  status: answer.status,
  body: answer.body.toString('utf8'),
  headers: answer.headers,
  ms: answer.ms,
});

export async function get(context: CorpusContext, address: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Outcome> {
  return outcome(await request(context.origin, path, { method, headers, localAddress: address }));
}

/** A POST with our own Origin (as a browser on the archive sends), unless `headers` replaces it. */
export async function post(
  context: CorpusContext,
  address: string,
  path: string,
  body: Buffer | string,
  headers: Record<string, string> = {},
  method = 'POST',
): Promise<Outcome> {
  return outcome(await request(context.origin, path, { method, headers: { Origin: context.origin, ...headers }, body, localAddress: address }));
}

export function postJson(context: CorpusContext, address: string, path: string, value: unknown, headers: Record<string, string> = {}): Promise<Outcome> {
  return post(context, address, path, typeof value === 'string' ? value : JSON.stringify(value), { 'Content-Type': 'application/json', Accept: 'application/json', ...headers });
}

/** A GraphQL request, asking for the GraphQL-over-HTTP media type (real 4xx for requests it refuses). */
export function gql(
  context: CorpusContext,
  address: string,
  query: string,
  { variables, get: asGet = false, accept = 'application/graphql-response+json' }: { variables?: unknown; get?: boolean; accept?: string } = {},
): Promise<Outcome> {
  if (asGet) {
    const search = new URLSearchParams({ query });
    if (variables !== undefined) search.set('variables', JSON.stringify(variables));
    return get(context, address, `/graphql?${search}`, { Accept: accept });
  }
  return postJson(context, address, '/graphql', { query, ...(variables === undefined ? {} : { variables }) }, { Accept: accept });
}

export interface UploadSpec {
  asset?: Record<string, unknown> | string;
  nonce?: string;
  signature?: string;
  document?: Buffer;
  documentName?: string;
  documentType?: string;
  proof?: Buffer;
  proofName?: string;
  /** A whole body of one's own instead of the wizard's. */
  form?: Pick<Form, 'contentType' | 'body'>;
  /** The session token (Alice's by default); null sends none. */
  token?: string | null;
  headers?: Record<string, string>;
}

/**
 * An upload that is valid in everything `spec` does not change: Alice's session, a fresh nonce,
 * her real signature of the very bytes sent.
 */
export async function sendUpload(context: CorpusContext, address: string, spec: UploadSpec = {}): Promise<Outcome> {
  const token = spec.token === undefined ? context.alice.token : spec.token;
  let form = spec.form;
  if (!form) {
    const document = spec.document ?? context.csv();
    const proof = spec.proof ?? context.png;
    const nonce = spec.nonce ?? (await context.nonce());
    const signature = spec.signature ?? (await context.sign(document, proof, nonce));
    form = uploadForm(spec.asset ?? context.asset(), nonce, signature, {
      document,
      proof,
      documentName: spec.documentName,
      documentType: spec.documentType,
      proofName: spec.proofName,
    });
  }
  const headers = { ...uploadHeaders(context.origin, token ?? '', form), ...spec.headers };
  if (token === null) delete (headers as Record<string, string>).Authorization;
  return outcome(await request(context.origin, '/v2/ops/assets/add', { method: 'POST', headers, body: form.body, localAddress: address }));
}

/** Raw bytes on a socket; the status of whatever answer comes back. */
export async function raw(context: CorpusContext, address: string, bytes: Buffer | string, options: { halfClose?: boolean; timeoutMs?: number } = {}): Promise<Outcome> {
  const started = performance.now();
  const answer = await rawRequest(context.origin, typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes, { localAddress: address, ...options });
  const split = answer.text.indexOf('\r\n\r\n');
  return { status: answer.status, body: split >= 0 ? answer.text.slice(split + 4) : answer.text, ms: performance.now() - started };
}

/** The head of a raw HTTP/1.1 request to the archive (ends with the blank line). */
export function head(context: CorpusContext, method: string, path: string, headers: Record<string, string>): string {
  const lines = [`${method} ${path} HTTP/1.1`, `Host: ${context.host}`, `Origin: ${context.origin}`, 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}
