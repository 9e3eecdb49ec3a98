import { SiweMessage } from 'siwe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const CHECK = { domain: 'archivo.test', chainIds: [1, 11155111] };

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
