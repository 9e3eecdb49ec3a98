/**
 * The browser's own CID of a download, with the archive's CID profile (the same options module
 * the server stores files with): so a reader can check a file against its CID without trusting
 * the archive. Blocks are hashed and dropped; memory stays flat whatever the file's size.
 */
import { importByteStream } from 'ipfs-unixfs-importer';
import { importerOptions } from '../../lib/domain/cid-profile.ts';

async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    yield value;
  }
}

/** The CID (v1, base32) of the bytes of `stream`. */
export async function cidOfStream(stream: ReadableStream<Uint8Array>): Promise<string> {
  const root = await importByteStream(chunksOf(stream), { put: (cid) => cid }, importerOptions());
  return root.cid.toString();
}

export type Verdict = { kind: 'match'; cid: string } | { kind: 'mismatch'; cid: string } | { kind: 'unreadable'; status: number | null };

/** Downloads `url` and compares the CID of what arrived with `expected`. */
export async function verifyDownload(url: string, expected: string): Promise<Verdict> {
  let response: Response;
  try {
    // Straight from the network: a cached copy would prove nothing.
    response = await fetch(url, { cache: 'no-store' });
  } catch {
    return { kind: 'unreadable', status: null };
  }
  if (!response.ok || !response.body) return { kind: 'unreadable', status: response.status };
  try {
    const cid = await cidOfStream(response.body);
    return cid === expected ? { kind: 'match', cid } : { kind: 'mismatch', cid };
  } catch {
    // The download broke off mid-way (the archive stops a file whose blocks fail their check).
    return { kind: 'unreadable', status: response.status };
  }
}
