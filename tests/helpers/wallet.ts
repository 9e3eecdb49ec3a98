/**
 * A real wallet in the browser for end-to-end tests: an EIP-1193 provider injected into the page,
 * backed by an ethers wallet in the test process, so every signature is real and verified.
 */
import type { APIRequestContext, Page } from '@playwright/test';
import { Wallet } from 'ethers';

// A fixed test key: the injected wallet signs for real with it, and the server verifies.
export const wallet = new Wallet('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
/** Another fixed test key: a wallet that is not a moderator. */
export const otherWallet = new Wallet('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
export const SHORT = `${wallet.address.toLowerCase().slice(0, 8)}…${wallet.address.toLowerCase().slice(-6)}`;

/** An EIP-1193 provider in the page, backed by the ethers wallet in the test process. */
export async function injectWallet(page: Page, { accounts, signer = wallet }: { accounts?: string[]; signer?: Wallet } = {}) {
  accounts ??= [signer.address];
  await page.exposeFunction('__testWalletSign', (message: string) => signer.signMessage(message));
  await page.addInitScript((accountsInPage: string[]) => {
    const sign = (window as unknown as { __testWalletSign: (m: string) => Promise<string> }).__testWalletSign;
    (window as unknown as { ethereum: unknown }).ethereum = {
      async request({ method, params }: { method: string; params?: unknown[] }) {
        switch (method) {
          case 'eth_requestAccounts':
          case 'eth_accounts':
            return accountsInPage;
          case 'eth_chainId':
            return '0xaa36a7'; // Sepolia, a test network
          case 'net_version':
            return '11155111';
          case 'personal_sign': {
            const [hex] = params as [string];
            const bytes = hex.startsWith('0x') ? hex.slice(2).match(/../g)!.map((pair) => parseInt(pair, 16)) : [];
            return sign(new TextDecoder().decode(new Uint8Array(bytes)));
          }
          default:
            throw Object.assign(new Error(`unsupported ${method}`), { code: 4200 });
        }
      },
      on() {},
      removeListener() {},
    };
  }, accounts);
}


/** Signs in through the real sign-in page with the injected wallet; ends on the dashboard. */
export async function signInWithWallet(page: Page, signer: Wallet = wallet): Promise<void> {
  await injectWallet(page, { signer });
  await page.goto('/auth/login');
  await page.getByRole('button', { name: 'Sign in with Magic Connect' }).click();
  await page.waitForURL(/\/dashboard$/);
}

/**
 * Signs in over the API as the README shows a script doing it (a nonce, a signed SIWE message) and
 * returns the `accessToken` to send as `Authorization: Bearer`.
 */
export async function signInOverApi(request: APIRequestContext, baseUrl: string, signer: Wallet = wallet): Promise<string> {
  const { signInMessage } = await import('../../src/lib/domain/siwe-message.ts');
  const { SIGN_IN_STATEMENT } = await import('../../src/lib/wallet/signin.ts');
  const { nonce } = await (await request.get(`${baseUrl}/auth/nonce`)).json();
  const message = signInMessage({
    domain: new URL(baseUrl).host,
    address: signer.address,
    statement: SIGN_IN_STATEMENT,
    uri: baseUrl,
    chainId: 11155111,
    nonce,
    issuedAt: new Date().toISOString(),
  });
  const login = await request.post(`${baseUrl}/auth/login`, { data: { message, signature: await signer.signMessage(message), provider: 'metamask' } });
  if (login.status() !== 200) throw new Error(`El inicio de sesión por la API respondió ${login.status()}: ${await login.text()}`);
  return (await login.json()).accessToken;
}
