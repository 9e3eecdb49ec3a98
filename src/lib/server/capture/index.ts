/**
 * Capture: fetching public files the archive did not choose, safely (`safe-fetch.ts`), and politely
 * (`robots-policy.ts`). The job queue and the content store build on these; nothing here writes.
 */
export { ADDRESS_KINDS, classifyAddress, isPublicAddress, refusedHost, type AddressKind } from './address-policy.ts';
export type { CaptureBody } from './capture-body.ts';
export { CAPTURE_FAILURES, CaptureError, type CaptureFailureReason } from './errors.ts';
export { isOwnAddress, ownAddressMessage } from './own-address.ts';
export { type AddressCheck, type HostResolver, type ResolvedAddress } from './resolve-host.ts';
export {
  CAPTURE_FETCH_DEFAULTS,
  CAPTURE_USER_AGENT_TOKEN,
  captureFetch,
  type CaptureFetchOptions,
  type CaptureRedirect,
  type CaptureResponse,
} from './safe-fetch.ts';
export { retryAfterMs } from './retry-after.ts';
export { crawlDelayFor, isAllowedByRobots, parseRobotsTxt, type RobotsRules } from './robots-txt.ts';
export { RobotsPolicy, type RobotsPolicyOptions, type RobotsVerdict } from './robots-policy.ts';
