/**
 * Where a header menu's panel opens (Notifications, WalletStatus): under its button from 640 px,
 * its `<details>` being `sm:relative`; on a phone, across the header (`nav`, which is `relative`),
 * since a button that is not at the right edge would push a right-aligned panel off the screen.
 * The panel's own width, from 640 px, is the caller's.
 */
export const HEADER_PANEL = 'absolute inset-x-4 top-full z-20 mt-2 rounded-xl border border-slate-200 bg-white p-4 shadow-lg sm:inset-x-auto sm:top-auto sm:right-0';
