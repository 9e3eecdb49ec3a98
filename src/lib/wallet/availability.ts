/**
 * Whether this browser can sign in at all, known before any wallet code loads (the sign-in page
 * decides what to say on first paint): a phone has no wallet extensions, so without Magic Connect
 * it can only sign in from inside a wallet app's own browser (issue #20).
 */

/** Where to get a browser wallet when there is none (SPEC §8). */
export const WALLET_DOWNLOAD_URL = 'https://metamask.io/download/';

/** An injected EIP-1193 wallet (an extension, or the browser of a wallet app). */
export function hasInjectedWallet(): boolean {
  return typeof window !== 'undefined' && 'ethereum' in window && Boolean((window as { ethereum?: unknown }).ethereum);
}

/** A phone or tablet: a touch screen as its main pointer, or a mobile browser's user agent. */
export function isPhone(): boolean {
  return matchMedia('(pointer: coarse)').matches || /Android|iPhone|iPad|iPod|Mobile/i.test(navigator.userAgent);
}

/**
 * MetaMask's documented deep link (metamask.app.link/dapp/…): on a phone with the app it opens
 * `location` in the app's browser, where the wallet is injected; without the app, its store page.
 */
export function walletAppLink(location: Pick<Location, 'host' | 'pathname' | 'search'>): string {
  return `https://metamask.app.link/dapp/${location.host}${location.pathname}${location.search}`;
}
