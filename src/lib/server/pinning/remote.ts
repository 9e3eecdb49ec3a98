/**
 * A remote pinning service that speaks the IPFS Pinning Service API
 * (https://ipfs.github.io/pinning-services-api-spec/): Pinata, Filebase, a cluster of one's own.
 * The archive asks it to pin each CID (`POST /pins`) and later asks how that request is going
 * (`GET /pins/{requestid}`). With each request go the archive's `origins`: the address of its own
 * trustless gateway as a multiaddr (`/dns4/archivo.example.org/tcp/443/https`), so the service can
 * fetch the blocks straight from the archive instead of hoping to find them on the IPFS network.
 * They come from the configuration (`ARCHIVE_PUBLIC_URL`), never from a request.
 *
 * Nothing here throws at a caller for the service's sake: an upload must not fail because a
 * remote service is down, slow or refuses the token. A refused pin is `failed`, and logged.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { PIN_STATUSES } from '../../domain/constants.ts';
import type { PinningProvider, PinResult } from './index.ts';
import { isPublicAddress } from '../capture/address-policy.ts';

/** Where the service is and how the archive signs in to it (`config.pinningService`). */
export interface RemotePinningService {
  /** The API's base URL, without `/pins` (e.g. `https://api.pinata.cloud/psa`). */
  endpoint: string;
  /** The bearer token the service issued to the archive. */
  token: string;
  /** The provider name recorded with each pin (by default the endpoint's host). */
  name: string;
  /** Where the service can fetch the blocks (`gatewayOrigins`); none when empty or absent. */
  origins?: readonly string[];
}

/**
 * The archive's trustless gateway as multiaddrs for a pin request's `origins`, from its public
 * origin: `https://archivo.example.org` is `/dns/archivo.example.org/tcp/443/https` (`/dns`, not
 * `/dns4`: a host with only IPv6 addresses is reachable too). None for an address a remote service
 * could never reach (loopback, private, link-local, reserved), as when no public URL is configured:
 * telling a third party the archive's internal addresses would help nobody but an intruder.
 */
export function gatewayOrigins(publicUrl: string): string[] {
  const url = new URL(publicUrl);
  const scheme = url.protocol === 'https:' ? 'https' : 'http';
  const port = url.port || (scheme === 'https' ? '443' : '80');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return [];
  const family = isIP(host);
  if (family !== 0 && !isPublicAddress(host)) return [];
  const protocol = family === 4 ? 'ip4' : family === 6 ? 'ip6' : 'dns';
  return [`/${protocol}/${host}/tcp/${port}/${scheme}`];
}

/** How long the archive waits for the service. */
export interface RemotePinningOptions {
  /** For a pin request, made while a contributor waits for the upload. Default 10 s. */
  pinTimeoutMs?: number;
  /** For a status check, made while a reader waits for the storage status. Default 3 s. */
  checkTimeoutMs?: number;
}

/** The part of the API's `PinStatus` object the archive reads. */
const pinStatusSchema = z.object({
  requestid: z.string().min(1),
  status: z.enum(PIN_STATUSES),
});

/** The API's `Failure` object; services fill `reason` (e.g. `UNAUTHORIZED`) and maybe `details`. */
const failureSchema = z.object({
  error: z.object({ reason: z.string(), details: z.string().optional() }),
});

/** The service answered, but not with a `PinStatus`: its HTTP status says why. */
class ServiceAnswerError extends Error {
  override readonly name = 'ServiceAnswerError';
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** Longest pin name the API accepts. */
const MAX_PIN_NAME = 255;

/**
 * A provider backed by a remote Pinning Service API. `pin` asks the service to pin the CID and
 * answers the status it reports (usually `queued`) with its request id; `check` asks again.
 *
 * @param fetchImpl the `fetch` to use (tests and proxies may pass their own)
 */
export function remotePinning(
  service: RemotePinningService,
  fetchImpl: typeof fetch = fetch,
  options: RemotePinningOptions = {},
): PinningProvider {
  const base = service.endpoint.replace(/\/+$/, '');
  const { pinTimeoutMs = 10_000, checkTimeoutMs = 3_000 } = options;
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (service.token) headers.Authorization = `Bearer ${service.token}`;

  /** One call of the API, its answer checked against the `PinStatus` shape. */
  async function call(url: string, init: RequestInit, timeoutMs: number): Promise<z.infer<typeof pinStatusSchema>> {
    const response = await fetchImpl(url, { ...init, headers: { ...headers, ...init.headers }, signal: AbortSignal.timeout(timeoutMs) });
    const body: unknown = await response.json().catch(() => null);
    if (!response.ok) {
      const failure = failureSchema.safeParse(body);
      const reason = failure.success ? `${failure.data.error.reason}${failure.data.error.details ? `: ${failure.data.error.details}` : ''}` : '';
      throw new ServiceAnswerError(response.status, `HTTP ${response.status}${reason ? ` (${reason.slice(0, 300)})` : ''}`);
    }
    const parsed = pinStatusSchema.safeParse(body);
    if (!parsed.success) {
      throw new ServiceAnswerError(response.status, `respuesta que no es un PinStatus: ${JSON.stringify(body)?.slice(0, 300)}`);
    }
    return parsed.data;
  }

  return {
    name: service.name,
    host: new URL(base).host,
    async pin(cid, details = {}): Promise<PinResult> {
      try {
        const answer = await call(
          `${base}/pins`,
          {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({
              cid,
              name: (details.name ?? cid).slice(0, MAX_PIN_NAME),
              ...(service.origins?.length ? { origins: service.origins } : {}),
            }),
          },
          pinTimeoutMs,
        );
        return { status: answer.status, requestId: answer.requestid };
      } catch (error) {
        console.error(`El servicio de anclaje ${service.name} no ancló ${cid}:`, describe(error));
        return { status: 'failed', requestId: null };
      }
    },
    /**
     * The status of an earlier pin request. A request the service no longer knows (404) is
     * `failed`; a service that cannot answer now throws, so the caller keeps what it knew.
     */
    async check(requestId) {
      try {
        return (await call(`${base}/pins/${encodeURIComponent(requestId)}`, { method: 'GET' }, checkTimeoutMs)).status;
      } catch (error) {
        if (error instanceof ServiceAnswerError && error.status === 404) return 'failed';
        throw error;
      }
    },
  };
}

/** An error for the log, without a stack for the expected cases (timeouts, refusals). */
function describe(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'sin respuesta a tiempo';
  if (error instanceof Error) return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
  return String(error);
}
