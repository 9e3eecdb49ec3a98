/**
 * Read-through from IPFS trustless gateways (issue #21): a blockstore that, asked for a block it
 * lacks, fetches it from the gateways `ARCHIVE_TRUSTLESS_GATEWAYS` lists (other archive servers'
 * `/ipfs/`, a kubo node's gateway, a public one), checks it against its CID, keeps it, and only
 * then hands it on. So a file is served wherever its blocks exist, and never an unverified byte.
 *
 * It wraps whichever blockstore the content store uses (a folder, S3): `has` and `get` are its
 * own, everything else goes to the store underneath. Each block is asked as
 * `GET {gateway}/ipfs/{cid}?format=raw` with `Accept: application/vnd.ipld.raw`
 * (https://specs.ipfs.tech/http-gateways/trustless-gateway/), the gateways in the order given:
 * one that answers altered bytes, an error or nothing in time is skipped, and said so in the log.
 * Bounded: a timeout per request, a size cap per block (the archive's blocks are 256 KiB leaves
 * and nodes of a few KiB), a limit on requests at once, and a short memory of CIDs no gateway had,
 * so a reader looping on a missing file does not hammer them.
 *
 * Never an open proxy. The check lives here, in front of every read of the store, rather than in
 * each caller: the gateway route, the record pages' previews, version comparisons and sheet
 * extraction all read through `ContentStore`, and a rule kept by each of them would be forgotten
 * by the next one. A block is fetched only when it is *admitted*:
 *
 * - a file's root: when the database says a record holds it (as its document, a proof, a sheet or
 *   an earlier version) and the file is not withdrawn (`isCatalogueFile`, given by whoever opens
 *   the store; `gateway/catalogue-files.ts`);
 * - any other block: when a dag-pb node handed out by this store links to it. A node is handed
 *   out only once it is admitted itself (or was stored here already) and verified, so its links
 *   are the rest of that very file: the content store asks for a file's blocks only by walking
 *   them down from its root.
 *
 * Anything else (a random CID, an inner block asked for out of the blue) is "not here" at once,
 * with no gateway contacted. Admitted links are kept in memory a short while, in bounded number.
 *
 * Loops: a server that lacks a block must not ask the peer that is asking it. The raw-block
 * answer of the archive's own gateway reads the local store only (`withoutReadThrough`), so two
 * servers that list each other never chase a block round in circles.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { decode as decodeDagPb } from '@ipld/dag-pb';
import type { CID } from 'multiformats/cid';
import { Turns } from '../concurrency/turns.ts';
import { BlockNotFoundError } from './blockstores.ts';
import { readWhole } from './byte-source.ts';
import { DAG_PB_CODE, RAW_CODE, SHA2_256_CODE } from './profile.ts';
import { readVerifiedBlock } from './verify.ts';

/** The media type of one block's bytes (IANA `application/vnd.ipld.raw`). */
export const RAW_BLOCK_MEDIA_TYPE = 'application/vnd.ipld.raw';

/** The part of a blockstore (interface-blockstore) the read-through wraps. */
export interface WrappableBlockstore {
  has(cid: CID, options?: object): Promise<boolean> | boolean;
  get(cid: CID, options?: object): AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
  put(cid: CID, bytes: Uint8Array, options?: object): Promise<CID> | CID;
}

export interface ReadThroughOptions {
  /** Base URLs of the gateways, tried in this order (`config.trustlessGateways`). */
  gateways: readonly string[];
  /** Whether the database knows `cid` (canonical CIDv1) as a file it serves: see the header. */
  isCatalogueFile(cid: string): Promise<boolean>;
  /** For tests and proxies. */
  fetch?: typeof fetch;
  /** Per request to one gateway (10 s). */
  timeoutMs?: number;
  /** Largest block accepted (1 MiB): a gateway sending more is skipped. */
  maxBlockBytes?: number;
  /** Gateway requests under way at once, all gateways together (8). */
  concurrency?: number;
  /** How long a CID no gateway could give is answered "not here" without asking again (30 s). */
  negativeTtlMs?: number;
  /** Where skipped gateways are reported (console.warn). */
  warn?: (message: string) => void;
}

/** Every gateway was asked and none gave the block's verified bytes (at least one failed, not just lacked it). */
export class ReadThroughError extends Error {
  override readonly name = 'ReadThroughError';
  readonly cid: string;

  constructor(cid: string) {
    super(`Ninguna pasarela entregó el bloque ${cid} verificado.`);
    this.cid = cid;
  }
}

const localOnly = new AsyncLocalStorage<boolean>();

/**
 * Runs `read` with the read-through off: every store wrapped here answers from its own blocks
 * only. For the archive's raw-block answers, which other servers read through from.
 */
export function withoutReadThrough<T>(read: () => Promise<T>): Promise<T> {
  return localOnly.run(true, read);
}

const MAX_ADMITTED_LINKS = 100_000;
const ADMITTED_FOR_MS = 15 * 60_000;
const MAX_REMEMBERED_MISSES = 10_000;
/** Gateway requests waiting for a slot at most. */
const MAX_WAITING = 64;

type Outcome = { bytes: Uint8Array } | 'missing' | 'failed';

/** `local` with read-through from `options.gateways`; every other method is `local`'s own. */
export function readThrough<T extends WrappableBlockstore>(local: T, options: ReadThroughOptions): T {
  const gateways = options.gateways.map((base) => base.replace(/\/+$/, ''));
  const fetchImpl = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBlockBytes = options.maxBlockBytes ?? 1024 * 1024;
  const negativeTtlMs = options.negativeTtlMs ?? 30_000;
  const warn = options.warn ?? ((message: string) => console.warn(message));
  // Past `MAX_WAITING` requests in line, a block is a failure at once (a 502), not a wait.
  const slots = new Turns(options.concurrency ?? 8, {
    maxWaiting: MAX_WAITING,
    tooManyWaiting: () => new Error('demasiadas peticiones en espera a las pasarelas'),
  });

  /** Blocks linked from nodes handed out, by multihash: until when they may be fetched. */
  const admittedLinks = new Map<string, number>();
  /** CIDs no gateway gave lately, by multihash: until when not to ask again, and why. */
  const recentlyMissing = new Map<string, { until: number; outcome: 'missing' | 'failed' }>();
  /** One fetch per block at a time, however many readers want it. */
  const inFlight = new Map<string, Promise<Outcome>>();

  const keyOf = (cid: CID) => Buffer.from(cid.multihash.bytes).toString('base64');

  function admitLinks(cid: CID, bytes: Uint8Array): void {
    if (cid.code !== DAG_PB_CODE) return;
    let links: CID[];
    try {
      links = decodeDagPb(bytes).Links.map((link) => link.Hash);
    } catch {
      return; // not a node the archive wrote: the content store will say so when it reads it
    }
    const until = Date.now() + ADMITTED_FOR_MS;
    for (const link of links) {
      if (link.code !== RAW_CODE && link.code !== DAG_PB_CODE) continue;
      const key = keyOf(link);
      admittedLinks.delete(key);
      admittedLinks.set(key, until);
    }
    for (const [oldest] of admittedLinks) {
      if (admittedLinks.size <= MAX_ADMITTED_LINKS) break;
      admittedLinks.delete(oldest);
    }
  }

  async function admitted(cid: CID): Promise<boolean> {
    const until = admittedLinks.get(keyOf(cid));
    if (until !== undefined && until > Date.now()) return true;
    if (cid.multihash.code !== SHA2_256_CODE || (cid.code !== RAW_CODE && cid.code !== DAG_PB_CODE)) return false;
    return options.isCatalogueFile(cid.toV1().toString());
  }

  /** The block's bytes from one gateway, verified; 'missing' when it says it has none. */
  async function fromGateway(base: string, cid: CID): Promise<Uint8Array | 'missing'> {
    // The deadline counts from the request, not from the slot: readers queued behind a slow
    // gateway give up in time too, and the line itself is bounded (`MAX_WAITING`).
    const signal = AbortSignal.timeout(timeoutMs);
    const bytes = await slots.run('', signal, async () => {
      const response = await fetchImpl(`${base}/ipfs/${cid.toV1().toString()}?format=raw`, {
        headers: { Accept: RAW_BLOCK_MEDIA_TYPE },
        signal,
        // A gateway is trusted for bytes we verify, not for where we go next: no redirects, so a
        // public gateway cannot point this server at an address inside its own network.
        redirect: 'error',
      });
      // 410: withdrawn there. Either way, not a failure of the gateway's.
      if (response.status === 404 || response.status === 410) {
        await response.body?.cancel().catch(() => undefined);
        return 'missing' as const;
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new Error(`respondió HTTP ${response.status}`);
      }
      const declared = Number(response.headers.get('content-length'));
      if (declared > maxBlockBytes) {
        await response.body?.cancel().catch(() => undefined);
        throw new Error(`ofreció un bloque de ${declared} bytes (máximo ${maxBlockBytes})`);
      }
      // A gateway may not say its length, or say less than it sends.
      if (!response.body) return new Uint8Array(0);
      return readWhole(response.body, maxBlockBytes, () => new Error(`envió más de ${maxBlockBytes} bytes`));
    });
    if (bytes === 'missing') return bytes;
    // The same check as every read of the store: the bytes must hash to the CID's digest.
    return readVerifiedBlock({ get: async function* () { yield bytes; } }, cid);
  }

  async function fetchBlock(cid: CID): Promise<Outcome> {
    let failed = false;
    for (const base of gateways) {
      try {
        const bytes = await fromGateway(base, cid);
        if (bytes === 'missing') continue;
        await local.put(cid, bytes);
        return { bytes };
      } catch (error) {
        failed = true;
        warn(`Pasarela ${base}: no se usó para el bloque ${cid.toString()} (${describe(error)}); se prueba la siguiente.`);
      }
    }
    return failed ? 'failed' : 'missing';
  }

  /**
   * The block from the gateways (one fetch per multihash at a time), or why not: 'missing' too
   * when it may not be fetched. Each request is admitted by its own CID before it joins a fetch:
   * a CID with the same digest under another codec, refused, must not refuse the file's own.
   */
  async function readThroughBlock(cid: CID): Promise<Outcome> {
    if (!(await admitted(cid))) return 'missing';
    const key = keyOf(cid);
    const missing = recentlyMissing.get(key);
    if (missing && missing.until > Date.now()) return missing.outcome;
    recentlyMissing.delete(key);
    let fetching = inFlight.get(key);
    if (!fetching) {
      fetching = (async () => {
        const outcome = await fetchBlock(cid);
        if (typeof outcome === 'string') {
          recentlyMissing.set(key, { until: Date.now() + negativeTtlMs, outcome });
          // Only files of the catalogue get here, but a catalogue can be large: the oldest go first.
          for (const [oldest] of recentlyMissing) {
            if (recentlyMissing.size <= MAX_REMEMBERED_MISSES) break;
            recentlyMissing.delete(oldest);
          }
        }
        return outcome;
      })().finally(() => inFlight.delete(key));
      inFlight.set(key, fetching);
    }
    return fetching;
  }

  const overrides = {
    async has(cid: CID, hasOptions?: object): Promise<boolean> {
      if (await local.has(cid, hasOptions)) return true;
      if (localOnly.getStore() || gateways.length === 0) return false;
      const outcome = await readThroughBlock(cid);
      if (outcome === 'failed') throw new ReadThroughError(cid.toString());
      return outcome !== 'missing';
    },
    async *get(cid: CID, getOptions?: object): AsyncGenerator<Uint8Array> {
      if (localOnly.getStore() || gateways.length === 0 || (await local.has(cid, getOptions))) {
        const chunks: Uint8Array[] = [];
        for await (const chunk of local.get(cid, getOptions)) chunks.push(chunk);
        const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        admitLinks(cid, bytes);
        yield bytes;
        return;
      }
      const outcome = await readThroughBlock(cid);
      if (outcome === 'failed') throw new ReadThroughError(cid.toString());
      // Named as blockstores name a missing block, so readers treat it as missing.
      if (outcome === 'missing') throw new BlockNotFoundError(`Not Found: ${cid.toString()}`);
      admitLinks(cid, outcome.bytes);
      yield outcome.bytes;
    },
  };

  return new Proxy(local, {
    get(target, property, receiver) {
      if (property === 'has' || property === 'get') return overrides[property];
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function describe(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'sin respuesta a tiempo';
  if (error instanceof Error && error.name === 'CorruptBlockError') return 'envió bytes que no corresponden al CID';
  if (error instanceof Error) return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
  return String(error);
}
