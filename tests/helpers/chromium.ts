/**
 * How this project launches Chromium, for Playwright's tests and the benchmark alike: Debian's
 * browser (Playwright cannot download its own on this network), headless, with the background
 * networking that this closed machine would refuse turned off.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
