/**
 * The one way the archive fetches a URL it did not choose (a catalogue, a file a catalogue names,
 * a robots.txt). Everything a hostile or broken server could do is bounded here, so it fails its
 * own capture with a `CaptureError` and harms nothing else:
 *
 * - only http and https; every address the host resolves to must be public (`address-policy.ts`),
 *   checked again on every redirect hop, and the connection goes to the checked address only;
 * - no hop at the archive's own address, when the caller names it (`ownHosts`, `own-address.ts`);
 * - redirects are followed here, never by the HTTP client: at most `maxRedirects`, no loops;
 * - timeouts for connecting (DNS, TCP and TLS), for the response headers, for silence in the body,
 *   and for the whole capture (a slow drip that never trips the idle timer still ends);
 * - a size limit: refused up front when Content-Length declares too much, and counted on the bytes
 *   as they stream in any case (`capture-body.ts`).
 *
 * Bytes are never decompressed: the request asks for `Accept-Encoding: identity`, and a server that
 * sends `Content-Encoding: gzip` anyway gets its bytes kept exactly as sent, with the encoding
 * reported in `contentEncoding`. The archive stores what the server published; a gzip bomb stays a
 * small file, since nothing here inflates it, and the caller's type check sees gzip, not the CSV a
 * catalogue declared.
 *
 * Built on node:http rather than fetch: undici is not a dependency of the archive (only of its
 * tools), and node:http gives the two hooks this needs, a per-request `lookup` and a socket whose
 * connect and TLS events can be timed.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { CaptureBody } from './capture-body.ts';
import { CaptureError, type CaptureFailureReason } from './errors.ts';
import { isOwnAddress } from './own-address.ts';
import { pinnedLookup, publicOnly, resolveCheckedAddress, systemResolver, type AddressRules, type ResolvedAddress } from './resolve-host.ts';

/** The product token robots.txt groups are matched against (`User-agent: ArchivoAbierto`). */
export const CAPTURE_USER_AGENT_TOKEN = 'ArchivoAbierto';

/** Limits a capture runs under unless its caller says otherwise. */
export const CAPTURE_FETCH_DEFAULTS = {
  userAgent: `${CAPTURE_USER_AGENT_TOKEN}/1.0 (captura de catalogos publicos de datos abiertos)`,
  /** The upload limit's default (`maxDocumentBytes`): a capture is held to what a contributor is. */
  maxBytes: 200_000_000,
  maxRedirects: 5,
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 30_000,
  idleTimeoutMs: 30_000,
  totalTimeoutMs: 10 * 60_000,
} as const;

export interface CaptureFetchOptions {
  /** Connect to private, loopback and reserved addresses too (`ARCHIVE_CAPTURE_ALLOW_PRIVATE`). Default false. */
  allowPrivate?: boolean;
  userAgent?: string;
  /** The `Accept` header; `*\/*` by default. */
  accept?: string;
  maxBytes?: number;
  maxRedirects?: number;
  /** To resolve a hop's host name, and then again to connect to it (TCP and TLS). */
  connectTimeoutMs?: number;
  /** From a connected socket to the response's status line and headers. */
  headersTimeoutMs?: number;
  /** Longest silence from the server while the body is being read. */
  idleTimeoutMs?: number;
  /** The whole capture, every hop and the body included. */
  totalTimeoutMs?: number;
  /** A re-check: the ETag of the copy the archive holds (`If-None-Match`); the server may answer 304. */
  ifNoneMatch?: string;
  /** A re-check: the Last-Modified of the copy the archive holds (`If-Modified-Since`). */
  ifModifiedSince?: string | Date;
  /** Cancels the capture (a worker shutting down); the body stream fails with `aborted`. */
  signal?: AbortSignal;
  /** Resolves host names; the system resolver by default. Tests make names resolve where they need. */
  resolver?: AddressRules['resolver'];
  /** Which resolved addresses may be fetched; public ones by default (ignored with `allowPrivate`). A cloud's metadata service and link-local addresses are refused whatever it says. */
  isAllowedAddress?: AddressRules['isAllowedAddress'];
  /** The archive's own hosts (`allowedHosts`): a hop there is refused before it connects (`own_address`). None by default. */
  ownHosts?: readonly string[];
}

/** One redirect followed on the way to the final URL. */
export interface CaptureRedirect {
  url: string;
  status: number;
  location: string;
}

/** What a capture record keeps about the response, and its body to stream. */
export interface CaptureResponse {
  /** The URL as the caller passed it (a catalogue's own spelling). */
  requestedUrl: string;
  /** The URL that answered, after every redirect. */
  finalUrl: string;
  redirects: CaptureRedirect[];
  /** The address the final response came from. */
  address: string;
  status: number;
  contentType: string | null;
  /** The Content-Length the server declared (the body is counted anyway). */
  contentLength: number | null;
  /** `gzip` and the like: the body is these bytes as sent, never decoded. */
  contentEncoding: string | null;
  etag: string | null;
  lastModified: string | null;
  /** `Retry-After` as sent (seconds or an HTTP date), with a 429 or 503 above all; see `retryAfterMs`. */
  retryAfter: string | null;
  startedAt: Date;
  /** Milliseconds from the start to the final response's headers. */
  headersAfterMs: number;
  /**
   * The body, to be read to the end or destroyed. It fails with a `CaptureError` (size, idle, total
   * time, cut connection); its `bytesReceived` counts what came. Empty for a 304.
   */
  body: CaptureBody;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Keeps sockets alive between captures from one host, pooled by the checked address as well as the
 * host: a kept socket is reused only where the address check of the new request pointed.
 */
class PinnedHttpAgent extends http.Agent {
  override getName(options?: http.ClientRequestArgs & { pinnedAddress?: string }): string {
    return `${super.getName(options)}@${options?.pinnedAddress ?? ''}`;
  }
}
class PinnedHttpsAgent extends https.Agent {
  override getName(options?: https.RequestOptions & { pinnedAddress?: string }): string {
    return `${super.getName(options)}@${options?.pinnedAddress ?? ''}`;
  }
}
// `timeout` ends free sockets left idle; sockets are unref'd while free, so they never hold a process open.
const AGENTS = {
  'http:': new PinnedHttpAgent({ keepAlive: true, timeout: 15_000 }),
  'https:': new PinnedHttpsAgent({ keepAlive: true, timeout: 15_000 }),
};

type Settings = Required<Omit<CaptureFetchOptions, 'ifNoneMatch' | 'ifModifiedSince' | 'signal' | 'accept' | 'ownHosts'>> &
  Pick<CaptureFetchOptions, 'ifNoneMatch' | 'ifModifiedSince' | 'signal' | 'accept' | 'ownHosts'>;

/**
 * Fetches `url` (GET) for a capture, under every limit above, following redirects itself. A
 * response of any status is an answer (a 404 or 500 is the caller's to judge); only what the
 * archive refuses or cannot complete throws.
 *
 * @throws CaptureError with a `reason` from `CAPTURE_FAILURES`
 */
export async function captureFetch(url: string, options: CaptureFetchOptions = {}): Promise<CaptureResponse> {
  const settings: Settings = {
    ...CAPTURE_FETCH_DEFAULTS,
    allowPrivate: false,
    resolver: systemResolver,
    isAllowedAddress: publicOnly,
    ...withoutUndefined(options),
  };
  const startedAt = new Date();
  const deadline = new Deadline(settings.totalTimeoutMs);
  const abort = () => deadline.cancel(new CaptureError('aborted'));
  settings.signal?.addEventListener('abort', abort, { once: true });
  try {
    if (settings.signal?.aborted) throw new CaptureError('aborted');
    const redirects: CaptureRedirect[] = [];
    const visited = new Set<string>();
    let current = parseCaptureUrl(url);
    for (;;) {
      visited.add(current.href);
      if (settings.ownHosts && isOwnAddress(current, settings.ownHosts)) throw new CaptureError('own_address', current.host, { url: current.href });
      const address = await deadline.race(
        withTimeout(resolveCheckedAddress(current, settings), settings.connectTimeoutMs, () => {
          return new CaptureError('connect_timeout', `resolviendo ${current.hostname}`, { url: current.href });
        }),
      );
      const response = await requestOnLiveSocket(current, address, settings, deadline);
      const location = response.headers.location;
      if (!REDIRECT_STATUSES.has(response.statusCode ?? 0) || !location) {
        const body = bodyOf(response, current, settings);
        deadline.cancelWith(body);
        body.once('close', () => {
          deadline.clear();
          settings.signal?.removeEventListener('abort', abort);
        });
        return responseFacts(url, current, redirects, address, response, startedAt, body);
      }
      response.destroy();
      const next = parseCaptureUrl(location, current);
      redirects.push({ url: current.href, status: response.statusCode ?? 0, location: next.href });
      if (visited.has(next.href)) throw new CaptureError('redirect_loop', next.href, { url: current.href });
      if (redirects.length > settings.maxRedirects) {
        throw new CaptureError('too_many_redirects', `más de ${settings.maxRedirects}`, { url: current.href });
      }
      current = next;
    }
  } catch (error) {
    deadline.clear();
    settings.signal?.removeEventListener('abort', abort);
    throw error;
  }
}

/** A URL the archive may fetch, resolved against `base` for a relative `Location`. */
function parseCaptureUrl(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw new CaptureError('invalid_url', text, { url: base?.href });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CaptureError('unsupported_scheme', url.protocol, { url: url.href });
  }
  url.hash = '';
  return url;
}

/** `work`, or `timeoutError()` if it has not settled after `ms` (the work itself cannot be cancelled: a DNS lookup). */
async function withTimeout<T>(work: Promise<T>, ms: number, timeoutError: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(timeoutError()), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function withoutUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** The total time limit: one timer for every hop and the body, cancelling whatever runs when it fires. */
class Deadline {
  #timer: NodeJS.Timeout;
  #cancel: ((error: CaptureError) => void) | undefined;
  #failure: CaptureError | undefined;

  constructor(ms: number) {
    this.#timer = setTimeout(() => this.cancel(new CaptureError('total_timeout', `${ms} ms`)), ms).unref();
  }

  cancel(error: CaptureError): void {
    this.#failure ??= error;
    this.#cancel?.(error);
  }

  /** From now on, a cancellation destroys `stream` with the error. */
  cancelWith(stream: { destroy(error: Error): void }): void {
    this.#cancel = (error) => stream.destroy(error);
    if (this.#failure) stream.destroy(this.#failure);
  }

  /** `work`, unless the deadline passes first. */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise<T>((resolve, reject) => {
      this.#cancel = reject;
      work.then(resolve, reject);
    });
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#cancel = undefined;
  }
}

/** Requests sent again, at most, when the kept-alive socket they went out on turns out closed. */
const STALE_SOCKET_RETRIES = 2;

/** A request written on a kept-alive socket that the server had closed: it never reached the server. */
class StaleSocket extends Error {
  readonly failure: CaptureError;
  constructor(failure: CaptureError) {
    super(failure.message, { cause: failure });
    this.failure = failure;
  }
}

/**
 * `requestOnce`, sent again on another socket when the kept-alive one it went out on was closed by
 * the server while it lay idle (Apache closes them after 5 s, the agent keeps them 15 s): the
 * request fails at once, before any answer, and a GET the server never read is safe to repeat
 * (Node's own advice, `request.reusedSocket`). Bounded: a stale socket is destroyed as it fails, and
 * after `STALE_SOCKET_RETRIES` the failure stands. A fresh connection that fails fails at once.
 */
async function requestOnLiveSocket(url: URL, address: ResolvedAddress, settings: Settings, deadline: Deadline): Promise<IncomingMessage> {
  for (let retry = 0; ; retry++) {
    try {
      return await requestOnce(url, address, settings, deadline);
    } catch (error) {
      if (!(error instanceof StaleSocket)) throw error;
      if (retry >= STALE_SOCKET_RETRIES) throw error.failure;
    }
  }
}

/** One GET to the checked address, resolved with the response once its headers arrive. */
function requestOnce(url: URL, address: ResolvedAddress, settings: Settings, deadline: Deadline): Promise<IncomingMessage> {
  return new Promise<IncomingMessage>((resolve, reject) => {
    let phase: 'connect' | 'headers' = 'connect';
    let timer: NodeJS.Timeout | undefined;
    const fail = (reason: CaptureFailureReason, detail: string) => request.destroy(new CaptureError(reason, detail, { url: url.href }));
    const waitForHeaders = () => {
      clearTimeout(timer);
      phase = 'headers';
      timer = setTimeout(() => fail('headers_timeout', `${settings.headersTimeoutMs} ms`), settings.headersTimeoutMs);
    };
    const request = (url.protocol === 'https:' ? https : http).request({
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: requestHeaders(settings),
      agent: AGENTS[url.protocol as keyof typeof AGENTS],
      lookup: pinnedLookup(address),
      pinnedAddress: address.address,
    } as http.RequestOptions);
    timer = setTimeout(() => fail('connect_timeout', `${settings.connectTimeoutMs} ms`), settings.connectTimeoutMs);
    request.on('socket', (socket: Socket) => {
      if (!socket.connecting) return waitForHeaders();
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', waitForHeaders);
    });
    request.on('response', (response) => {
      clearTimeout(timer);
      resolve(response);
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const failure = error instanceof CaptureError ? error : networkFailure(error, phase, url);
      // No response came (this promise would be settled): on a reused socket, the server had closed it.
      const stale = request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
      reject(stale ? new StaleSocket(failure) : failure);
    });
    // The deadline destroys the request with its CaptureError, which the error listener rejects with.
    deadline.cancelWith(request);
    request.end();
  });
}

function requestHeaders(settings: Settings): Record<string, string> {
  const headers: Record<string, string> = {
    'user-agent': settings.userAgent,
    accept: settings.accept ?? '*/*',
    'accept-encoding': 'identity',
  };
  if (settings.ifNoneMatch) headers['if-none-match'] = settings.ifNoneMatch;
  if (settings.ifModifiedSince) {
    headers['if-modified-since'] =
      settings.ifModifiedSince instanceof Date ? settings.ifModifiedSince.toUTCString() : settings.ifModifiedSince;
  }
  return headers;
}

/**
 * What the commonest socket and certificate errors mean, in Spanish: Node's own messages are
 * English («connect ECONNREFUSED 127.0.0.1:9»). Their code goes with them, for whoever looks further.
 */
const SOCKET_PROBLEMS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'rechazó la conexión',
  ECONNRESET: 'cortó la conexión',
  EPIPE: 'cortó la conexión',
  ECONNABORTED: 'la conexión se interrumpió',
  ETIMEDOUT: 'no respondió a tiempo',
  EHOSTUNREACH: 'no se puede llegar al servidor',
  ENETUNREACH: 'no se puede llegar a su red',
  EHOSTDOWN: 'el servidor no está en línea',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'su certificado es autofirmado',
  SELF_SIGNED_CERT_IN_CHAIN: 'su cadena de certificados lleva uno autofirmado',
  CERT_HAS_EXPIRED: 'su certificado caducó',
  ERR_TLS_CERT_ALTNAME_INVALID: 'su certificado es de otro nombre',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'no se pudo verificar su certificado',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'no se pudo verificar su certificado',
};

/** A socket or parser error as the capture reason a moderator can read. */
function networkFailure(error: NodeJS.ErrnoException, phase: 'connect' | 'headers', url: URL): CaptureError {
  const code = error.code ?? '';
  const problem = SOCKET_PROBLEMS[code] ?? (code.startsWith('HPE_') ? 'respuesta HTTP mal formada' : undefined);
  const detail = `${url.host}: ${problem ? `${problem} (${code})` : error.message}`;
  const options = { cause: error, url: url.href };
  if (code.startsWith('HPE_')) return new CaptureError('invalid_response', detail, options);
  if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH)/.test(code)) {
    return new CaptureError('tls_failed', detail, options);
  }
  return new CaptureError(phase === 'connect' ? 'connect_failed' : 'invalid_response', detail, options);
}

function bodyOf(response: IncomingMessage, url: URL, settings: Settings): CaptureBody {
  const declared = declaredLength(response);
  if (declared !== null && declared > settings.maxBytes) {
    response.destroy();
    throw new CaptureError('too_large', `declara ${declared} bytes, el límite es ${settings.maxBytes}`, { url: url.href });
  }
  return new CaptureBody(response, { maxBytes: settings.maxBytes, idleTimeoutMs: settings.idleTimeoutMs, url: url.href });
}

function declaredLength(response: IncomingMessage): number | null {
  const header = response.headers['content-length'];
  if (header === undefined || !/^\d+$/.test(header)) return null;
  const length = Number(header);
  return Number.isSafeInteger(length) ? length : null;
}

function responseFacts(
  requestedUrl: string,
  finalUrl: URL,
  redirects: CaptureRedirect[],
  address: ResolvedAddress,
  response: IncomingMessage,
  startedAt: Date,
  body: CaptureBody,
): CaptureResponse {
  const header = (name: string): string | null => {
    const value = response.headers[name];
    return typeof value === 'string' ? value : (value?.[0] ?? null);
  };
  return {
    requestedUrl,
    finalUrl: finalUrl.href,
    redirects,
    address: address.address,
    status: response.statusCode ?? 0,
    contentType: header('content-type'),
    contentLength: declaredLength(response),
    contentEncoding: header('content-encoding'),
    etag: header('etag'),
    lastModified: header('last-modified'),
    retryAfter: header('retry-after'),
    startedAt,
    headersAfterMs: Date.now() - startedAt.getTime(),
    body,
  };
}
