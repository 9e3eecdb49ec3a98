/**
 * Blocks in an S3-compatible bucket (AWS S3, Cloudflare R2, MinIO, Ceph's gateway…), one object per
 * block, named `prefix + CID` (CIDv1, base32: the CID a gateway is asked for). Several servers
 * reading and writing one bucket see the same files.
 *
 * Every call is bounded: a connection must open within `connectTimeoutMs` and a request finish
 * within `requestTimeoutMs`, and a block is read whole into memory only up to `MAX_BLOCK_BYTES`,
 * so a wrong object (not one the archive wrote) cannot fill the heap. Bytes are not trusted: the
 * content store checks each block against its CID, as it does on disk.
 */
import fs from 'node:fs/promises';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import type { CID } from 'multiformats/cid';
import type { BlockstoreSettings } from '../config.ts';
import { BlockNotFoundError, type OpenedBlockstore } from './blockstores.ts';
import { readWhole } from './byte-source.ts';
import { CorruptBlockError } from './errors.ts';
import { CHUNK_SIZE } from './profile.ts';

export type S3BlockstoreOptions = Extract<BlockstoreSettings, { kind: 's3' }> & {
  /** How long opening a connection may take (5 s). */
  connectTimeoutMs?: number;
  /** How long one request may take, its body included (30 s). */
  requestTimeoutMs?: number;
};

/**
 * The largest object read as a block: a leaf is one 256 KiB chunk and an interior node some 8 KiB
 * (174 links), so four chunks leave room to spare and still bound a read.
 */
const MAX_BLOCK_BYTES = 4 * CHUNK_SIZE;

/**
 * The AWS SDK, loaded by the first call to a bucket: it is some 30 MB of a server's resident memory,
 * which a server keeping its blocks on disk (the default) would carry for nothing.
 */
let sdk: Promise<typeof import('@aws-sdk/client-s3')> | undefined;
const loadSdk = () =>
  (sdk ??= import('@aws-sdk/client-s3').catch((error: unknown) => {
    // Not kept: the next call tries again rather than failing for the life of the process.
    sdk = undefined;
    throw error;
  }));

/** The bucket and prefix that `options` name, as a blockstore. Synchronous: nothing is reached before the first call. */
export function s3Blockstore(options: S3BlockstoreOptions): OpenedBlockstore {
  let opened: Promise<S3Client> | undefined;
  const client = () =>
    (opened ??= loadSdk()
      .then(({ S3Client }) => new S3Client(clientSettings(options)))
      .catch((error: unknown) => {
        opened = undefined;
        throw error;
      }));
  const Bucket = options.bucket;
  const keyOf = (cid: CID): string => `${options.prefix}${cid.toV1().toString()}`;

  async function has(cid: CID, signal?: AbortSignal): Promise<boolean> {
    const { HeadObjectCommand } = await loadSdk();
    try {
      await (await client()).send(new HeadObjectCommand({ Bucket, Key: keyOf(cid) }), { abortSignal: signal });
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  async function put(cid: CID, bytes: Uint8Array, signal?: AbortSignal): Promise<CID> {
    const { PutObjectCommand } = await loadSdk();
    await (await client()).send(new PutObjectCommand({ Bucket, Key: keyOf(cid), Body: bytes, ContentLength: bytes.byteLength }), {
      abortSignal: signal,
    });
    return cid;
  }

  async function del(cid: CID, signal?: AbortSignal): Promise<void> {
    // S3 answers 204 for a key that is not there: deleting twice is not an error.
    const { DeleteObjectCommand } = await loadSdk();
    await (await client()).send(new DeleteObjectCommand({ Bucket, Key: keyOf(cid) }), { abortSignal: signal });
  }

  return {
    has: (cid, callOptions) => has(cid, callOptions?.signal),
    async probe() {
      // A missing bucket answers HeadObject with a bare 404, as a missing block does: asked here by name.
      const { HeadBucketCommand } = await loadSdk();
      await (await client()).send(new HeadBucketCommand({ Bucket }));
    },
    async *get(cid, callOptions) {
      const { GetObjectCommand } = await loadSdk();
      let answer;
      try {
        answer = await (await client()).send(new GetObjectCommand({ Bucket, Key: keyOf(cid) }), { abortSignal: callOptions?.signal });
      } catch (error) {
        if (isNotFound(error)) throw new BlockNotFoundError(`Block ${cid.toString()} is not in s3://${Bucket}/${options.prefix}`, { cause: error });
        throw error;
      }
      if (answer.Body === undefined) throw new BlockNotFoundError(`Block ${cid.toString()} came back without a body`);
      // Whatever Content-Length said: an object the archive did not write may be of any size.
      yield await readWhole(
        answer.Body.transformToWebStream(),
        MAX_BLOCK_BYTES,
        () => new CorruptBlockError(cid.toString(), `is over ${MAX_BLOCK_BYTES} bytes, larger than any block the archive writes`),
      );
    },
    put: (cid, bytes, callOptions) => put(cid, bytes, callOptions?.signal),
    delete: (cid, callOptions) => del(cid, callOptions?.signal),
    async adopt(cid, file) {
      // One block (at most a chunk and its framing) in memory; the staged copy stays until settle.
      await put(cid, await fs.readFile(file));
    },
    async close() {
      // A client that never opened has nothing to release.
      const client = await opened?.catch(() => undefined);
      client?.destroy();
    },
  };
}

/** The client's settings for `options`. */
function clientSettings(options: S3BlockstoreOptions): S3ClientConfig {
  return {
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle,
    credentials: options.credentials,
    // Checksums only where S3 requires them: the SDK's newer default (a CRC in a chunked trailer on
    // every PUT) is what several S3-compatible servers refuse. Blocks carry their own hash anyway.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    requestHandler: {
      connectionTimeout: options.connectTimeoutMs ?? 5_000,
      requestTimeout: options.requestTimeoutMs ?? 30_000,
      throwOnRequestTimeout: true,
    },
  };
}

/** A 404 of any kind: GET says NoSuchKey, HEAD has no body and says NotFound (an `S3ServiceException`'s status and name). */
function isNotFound(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return status === 404 || error.name === 'NoSuchKey' || error.name === 'NotFound';
}
