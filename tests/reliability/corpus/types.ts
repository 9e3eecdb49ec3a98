/**
 * The hostile-input corpus (issue #10 'Bad input'): each case is one request, the bullet
 * it covers, and the answer a careful server gives. Cases are plain data plus a `send` function,
 * so a new one is a few lines in the file of its area.
 */
import type { Wallet } from 'ethers';
import type { Session } from '../support/archive-client.ts';
import type { KnownBug } from '../support/known.ts';

/** The bullets of the issue, so the suite can check that each has cases. */
export const BULLETS = {
  multipart: 'malformed multipart',
  truncated: 'truncated bodies',
  oversized: 'oversized fields',
  contentType: 'wrong content types',
  traversal: 'path traversal in file names',
  nul: 'NUL bytes',
  utf8: 'invalid UTF-8',
  html: 'HTML and script in text fields',
  sql: 'SQL injection in filters',
  limit: 'huge limit',
  graphql: 'deep and wide GraphQL queries',
  cid: 'invalid CIDs',
  forged: 'forged tokens and signatures',
  method: 'wrong methods',
  rate: 'too many requests',
  host: 'odd Host headers (issue #16)',
} as const;
export type Bullet = keyof typeof BULLETS;

/** What the server sent back; `status` is null when it closed the connection without an answer. */
export interface Outcome {
  status: number | null;
  body: string;
  headers?: Record<string, string | string[] | undefined>;
  ms: number;
}

export interface Expectation {
  /** The acceptable statuses (more than one only where HTTP leaves the choice open). */
  status: number | number[];
  /** For a GraphQL answer: the code its first error must carry (e.g. BAD_USER_INPUT). */
  graphqlCode?: string;
  /** A body cut short at the HTTP level: closing without an answer is acceptable too. */
  noAnswerOk?: boolean;
  /** The answer must come within this time (a `pg_sleep` injected into a filter must not run). */
  maxMs?: number;
  /** Text that must not appear in the answer (a file read through a traversal, a stack trace…). */
  excludes?: string[];
  /** Text that must appear in the answer (e.g. `"errors"` for a refusal inside a GraphQL 200). */
  includes?: string[];
}

export interface CorpusContext {
  origin: string;
  /** `127.0.0.1:port`, the SIWE domain. */
  host: string;
  /** A contributor (not a moderator) with a session. */
  alice: Session;
  /** Another wallet with a session of its own. */
  mallory: Session;
  /** A moderator with a session. */
  moderator: Session;
  /** A fresh upload nonce for `session` (Alice's by default). */
  nonce(session?: Session): Promise<string>;
  /** Alice's (or `wallet`'s) real signature of the confirmation for these bytes and nonce. */
  sign(document: Buffer, proof: Buffer, nonce: string, wallet?: Wallet): Promise<string>;
  /** A valid `asset` field for Alice, with `overrides`. */
  asset(overrides?: Record<string, unknown>): Record<string, unknown>;
  /** A small valid CSV document, unique to each call, and a valid PNG proof. */
  csv(): Buffer;
  png: Buffer;
  /** A record stored during setup: its id, CID and proof CID. */
  record: { id: number; cid: string; proofCid: string; sourceId: number };
  /** An upload nonce already spent by an accepted upload. */
  spentNonce: string;
  /** A sign-in proof already used once (for replay). */
  spentLogin: { message: string; signature: string };
}

export interface HostileCase {
  name: string;
  bullet: Bullet;
  expect: number | number[] | Expectation;
  /** A diagnosed failure (support/known.ts): still reported, and allowed with RELIABILITY_ALLOW_KNOWN=1. */
  known?: KnownBug;
  /** Sends the request from `address` (each case has a loopback address of its own). */
  send(context: CorpusContext, address: string): Promise<Outcome>;
}

export function expectationOf(hostile: HostileCase): Expectation {
  const given = hostile.expect;
  return typeof given === 'number' || Array.isArray(given) ? { status: given } : given;
}
