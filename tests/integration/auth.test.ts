import { Signature } from 'ethers';
import { SiweMessage } from 'siwe';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { login, type AuthContext } from '../../src/lib/server/auth/index.ts';
import { SIGN_IN_STATEMENT } from '../../src/lib/wallet/signin.ts';
import { signInMessage } from '../../src/lib/domain/siwe-message.ts';
import { userId } from '../../src/lib/domain/user.ts';
import { issueNonce } from '../../src/lib/server/auth/nonces.ts';
import { spend } from '../../src/lib/server/auth/rate-limit.ts';
import { createSession, findSessionUser, revokeSession, upsertUser } from '../../src/lib/server/auth/sessions.ts';
import { verifySignIn } from '../../src/lib/server/auth/siwe.ts';
import { HttpError } from '../../src/lib/server/http/errors.ts';
import { createTestDatabase, testEngines } from '../helpers/database.ts';
import { ALICE, MALLORY, signedProof } from '../helpers/siwe.ts';

const CHECK = { domains: ['archivo.test'], chainIds: [1, 11155111] };

async function statusOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (error) {
    if (error instanceof HttpError) return error.status;
    throw error;
  }
}

describe('the browser-built sign-in message', () => {
  it('reads back field for field with the siwe parser the server uses', () => {
    const fields = {
      domain: 'localhost:4321',
      address: ALICE.address,
      statement: SIGN_IN_STATEMENT,
      uri: 'http://localhost:4321',
      chainId: 11155111,
      nonce: 'a1b2c3d4e5f60718',
      issuedAt: '2026-11-21T10:00:00.000Z',
      expirationTime: '2026-11-21T10:10:00.000Z',
    };
    const parsed = new SiweMessage(signInMessage(fields));
    expect(parsed).toMatchObject({ ...fields, version: '1' });
    expect(parsed.prepareMessage()).toBe(signInMessage(fields));
  });
});

describe.each(testEngines())('signing in on %s', (engine) => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    database = await createTestDatabase(engine);
  });
  afterAll(() => database?.destroy());

  it('accepts a real signature once, then opens a session that reads back its user', async () => {
    const { nonce } = await issueNonce(database.db);
    const proof = await signedProof(ALICE, { nonce });
    const account = await verifySignIn(database.db, { ...proof, ...CHECK });
    expect(account).toBe(ALICE.address.toLowerCase());

    const id = await upsertUser(database.db, account, 'metamask');
    const session = await createSession(database.db, id);
    expect(await findSessionUser(database.db, session.token)).toEqual({
      id: userId(account, 'metamask'),
      account,
      provider: 'metamask',
    });

    // The same signed message again: its nonce is spent.
    expect(await statusOf(verifySignIn(database.db, { ...proof, ...CHECK }))).toBe(401);

    await revokeSession(database.db, session.token);
    expect(await findSessionUser(database.db, session.token)).toBeNull();
  });

  it('refuses another site, another key, a nonce it never issued, an old message and a foreign chain', async () => {
    const wrongDomain = await signedProof(ALICE, { nonce: (await issueNonce(database.db)).nonce, domain: 'evil.example' });
    expect(await statusOf(verifySignIn(database.db, { ...wrongDomain, ...CHECK }))).toBe(401);

    // Mallory signs a message that claims to be Alice's.
    const { nonce } = await issueNonce(database.db);
    const claimed = signInMessage({
      domain: 'archivo.test',
      address: ALICE.address,
      statement: 'x',
      uri: 'https://archivo.test',
      chainId: 1,
      nonce,
      issuedAt: new Date().toISOString(),
    });
    expect(await statusOf(verifySignIn(database.db, { message: claimed, signature: await MALLORY.signMessage(claimed), ...CHECK }))).toBe(401);

    const invented = await signedProof(ALICE, { nonce: 'abcdef0123456789' });
    expect(await statusOf(verifySignIn(database.db, { ...invented, ...CHECK }))).toBe(401);

    const old = await signedProof(ALICE, {
      nonce: (await issueNonce(database.db)).nonce,
      issuedAt: new Date(Date.now() - 60 * 60 * 1000).toISOString(),
      expirationTime: undefined,
    });
    expect(await statusOf(verifySignIn(database.db, { ...old, ...CHECK }))).toBe(401);

    const otherChain = await signedProof(ALICE, { nonce: (await issueNonce(database.db)).nonce, chainId: 56 });
    expect(await statusOf(verifySignIn(database.db, { ...otherChain, ...CHECK }))).toBe(401);

    expect(await statusOf(verifySignIn(database.db, { message: 'hola', signature: '0x00', ...CHECK }))).toBe(400);
  });

  it('refuses a message for a configured domain whose URI is another site, and a domain only the request named', async () => {
    const otherUri = await signedProof(ALICE, { nonce: (await issueNonce(database.db)).nonce, uri: 'https://phish.example/entrar' });
    expect(await statusOf(verifySignIn(database.db, { ...otherUri, ...CHECK }))).toBe(401);
    // The phishing page's own domain: the wallet shows no warning, but no configuration lists it.
    const phish = await signedProof(ALICE, { nonce: (await issueNonce(database.db)).nonce, domain: 'phish.example', uri: 'https://phish.example' });
    await expect(verifySignIn(database.db, { ...phish, ...CHECK })).rejects.toThrow('El mensaje firmado es para otro sitio.');
    // The same archive under another configured name is fine.
    const alias = await signedProof(ALICE, { nonce: (await issueNonce(database.db)).nonce, domain: 'localhost:4321', uri: 'http://localhost:4321' });
    expect(await verifySignIn(database.db, { ...alias, domains: ['archivo.test', 'localhost:4321'], chainIds: CHECK.chainIds })).toBe(ALICE.address.toLowerCase());
  });

  it('says a message is not valid yet, and refuses a high-s signature without logging a stack trace', async () => {
    const future = new Date(Date.now() + 60 * 60 * 1000).toISOString();
    const early = await signedProof(ALICE, { nonce: (await issueNonce(database.db)).nonce, notBefore: future });
    await expect(verifySignIn(database.db, { ...early, ...CHECK })).rejects.toThrow(/todavía no es válido/);

    const proof = await signedProof(ALICE, { nonce: (await issueNonce(database.db)).nonce });
    const errors = vi.spyOn(console, 'error');
    try {
      expect(await statusOf(verifySignIn(database.db, { ...proof, signature: highS(proof.signature), ...CHECK }))).toBe(401);
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
    // The nonce was not spent by the refusal: the real signature still signs in.
    expect(await verifySignIn(database.db, { ...proof, ...CHECK })).toBe(ALICE.address.toLowerCase());
  });

  it("does not let junk naming a wallet lock that wallet out: failures count against their sender's address", async () => {
    const victim = MALLORY;
    const junk = (nonce: string) =>
      signInMessage({ domain: 'archivo.test', address: victim.address, statement: 'x', uri: 'https://archivo.test', chainId: 1, nonce, issuedAt: new Date().toISOString() });
    const attacker = '198.51.100.66';
    // The limits count in fixed minutes (`rate-limit.ts`): the 22 attempts start well inside one,
    // or the last two would fall in the next minute and be counted afresh.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 50));
    const statuses: number[] = [];
    for (let i = 0; i < 22; i += 1) {
      const message = junk((await issueNonce(database.db)).nonce);
      statuses.push(await statusOf(login(loginContext(database.db, attacker, { message, signature: `0x${'11'.repeat(65)}`, provider: 'metamask' }))));
    }
    expect(statuses.slice(0, 20).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(20)).toEqual([429, 429]);
    // The owner, from their own address, signs in at once.
    const real = await signedProof(victim, { nonce: (await issueNonce(database.db)).nonce });
    const answer = await login(loginContext(database.db, '203.0.113.20', { ...real, provider: 'metamask' }));
    expect(answer.user.account).toBe(victim.address.toLowerCase());
  });

  it('sets a Secure session cookie when the public address is https, though the proxy says nothing of it', async () => {
    // The request reaches the server as plain http, with no X-Forwarded-Proto.
    const plain = await signedProof(ALICE, { nonce: (await issueNonce(database.db)).nonce });
    await login(loginContext(database.db, '203.0.113.31', { ...plain, provider: 'metamask' }));
    expect(cookieOptions?.secure).toBe(false);
    const secure = await signedProof(ALICE, { nonce: (await issueNonce(database.db)).nonce });
    await login(loginContext(database.db, '203.0.113.31', { ...secure, provider: 'metamask' }, { secureCookies: true }));
    expect(cookieOptions?.secure).toBe(true);
  });

  it('refuses an expired nonce even with a valid signature', async () => {
    const past = new Date(Date.now() - 11 * 60 * 1000);
    const { nonce } = await issueNonce(database.db, past);
    const proof = await signedProof(ALICE, { nonce });
    expect(await statusOf(verifySignIn(database.db, { ...proof, ...CHECK }))).toBe(401);
  });

  it("knows no session for forged tokens, including base64 of someone else's account", async () => {
    const account = ALICE.address.toLowerCase();
    await upsertUser(database.db, account, 'metamask');
    for (const forged of [userId(account, 'metamask'), 'x'.repeat(43), '', 'a'.repeat(500)]) {
      expect(await findSessionUser(database.db, forged)).toBeNull();
    }
    const id = await upsertUser(database.db, account, 'metamask');
    const expired = await createSession(database.db, id, new Date(Date.now() - 31 * 24 * 60 * 60 * 1000));
    expect(await findSessionUser(database.db, expired.token)).toBeNull();
  });

  it('limits requests per key and window, with a 429', async () => {
    const limit = { max: 3, windowSeconds: 60 };
    const now = new Date();
    for (let i = 0; i < 3; i += 1) await spend(database.db, 'test:ip:203.0.113.7', limit, now);
    expect(await statusOf(spend(database.db, 'test:ip:203.0.113.7', limit, now))).toBe(429);
    // Another address is counted apart, and the next window starts afresh.
    await spend(database.db, 'test:ip:203.0.113.8', limit, now);
    await spend(database.db, 'test:ip:203.0.113.7', limit, new Date(now.getTime() + 61_000));
  });
});

/** The same signature with s replaced by n − s (and v flipped): valid for secp256k1, refused by EIP-2. */
function highS(signature: string): string {
  const parsed = Signature.from(signature);
  const n = BigInt('0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141');
  const s = (n - BigInt(parsed.s)).toString(16).padStart(64, '0');
  const v = parsed.v === 27 ? '1c' : '1b';
  return `0x${parsed.r.slice(2)}${s}${v}`;
}

/** Options the session cookie was last set with, by `loginContext`'s jar. */
let cookieOptions: { secure?: boolean } | undefined;

/** What the /auth/login endpoint hands the recipe: a JSON request from `clientAddress`, and cookies. */
function loginContext(db: AuthContext['db'], clientAddress: string, body: unknown, more: Partial<AuthContext> = {}): AuthContext {
  const jar = new Map<string, string>();
  const cookies = {
    get: (name: string) => (jar.has(name) ? { value: jar.get(name) } : undefined),
    set: (name: string, value: string, options?: { secure?: boolean }) => {
      jar.set(name, value);
      cookieOptions = options;
    },
    delete: (name: string) => void jar.delete(name),
  } as unknown as AuthContext['cookies'];
  const request = new Request('http://archivo.test/auth/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { db, request, cookies, clientAddress, domains: ['archivo.test'], chainIds: [1, 11155111], ...more };
}


