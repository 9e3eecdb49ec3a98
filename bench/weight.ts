/**
 * Page weight as an anonymous first-time visitor gets it, in a real Chromium: every script and
 * stylesheet the page loads, including the islands that hydrate only when scrolled into view, plus
 * the inline scripts and styles of the HTML. Sizes are gzipped here (level 9), one file at a time,
 * because the server may not compress; that is close to what a compressing proxy would send.
 */
import { CHROMIUM_ARGS } from '../tests/helpers/chromium.ts';
import { gzipSync } from 'node:zlib';
import { chromium, type Page } from '@playwright/test';
import type { BenchRoute } from './routes.ts';
import { kb, table } from './stats.ts';

export interface WeightFigure {
  key: string;
  label: string;
  path: string;
  status: number;
  note?: string;
  jsFiles: number;
  /** External scripts plus inline ones, uncompressed. */
  jsBytes: number;
  jsGzipBytes: number;
  /** The inline part of the figures above. */
  inlineJsGzipBytes: number;
  cssFiles: number;
  cssGzipBytes: number;
  htmlGzipBytes: number;
  jsBudgetKb: number | null;
  over: boolean;
  /** Uncaught errors in the page, a sign the figures miss something. */
  pageErrors: string[];
}

const gz = (bytes: Uint8Array | string) => gzipSync(bytes, { level: 9 }).byteLength;

/** Scrolls down a screen at a time so every `client:visible` island intersects the viewport. */
async function scrollThrough(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const pause = () => new Promise((resolve) => setTimeout(resolve, 80));
    for (let y = 0; y < document.documentElement.scrollHeight; y += Math.max(200, window.innerHeight * 0.8)) {
      window.scrollTo(0, y);
      await pause();
    }
    window.scrollTo(0, document.documentElement.scrollHeight);
    await pause();
  });
}

/** Resolves once no request has been in flight for `quietMs` (or after `maxMs`). */
function networkQuiet(page: Page, quietMs = 500, maxMs = 10_000) {
  let inFlight = 0;
  let last = Date.now();
  const start = () => {
    inFlight += 1;
    last = Date.now();
  };
  const end = () => {
    inFlight = Math.max(0, inFlight - 1);
    last = Date.now();
  };
  page.on('request', start);
  page.on('requestfinished', end);
  page.on('requestfailed', end);
  return async () => {
    const deadline = Date.now() + maxMs;
    while (Date.now() < deadline && (inFlight > 0 || Date.now() - last < quietMs)) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
}

async function weigh(browser: Awaited<ReturnType<typeof chromium.launch>>, origin: string, route: BenchRoute): Promise<WeightFigure> {
  const context = await browser.newContext({ locale: 'es-DO', viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  const bodies: Array<Promise<{ type: string; bytes: Uint8Array } | null>> = [];
  page.on('response', (response) => {
    const type = response.request().resourceType();
    if (type !== 'script' && type !== 'stylesheet' && type !== 'document') return;
    bodies.push(response.body().then((bytes) => ({ type, bytes }), () => null));
  });
  const quiet = networkQuiet(page);
  try {
    const response = await page.goto(origin + route.path, { waitUntil: 'networkidle' });
    const status = response?.status() ?? 0;
    await scrollThrough(page);
    await quiet();
    const inline = await page.evaluate(() => ({
      scripts: [...document.querySelectorAll('script:not([src])')]
        .filter((script) => !/json/i.test(script.getAttribute('type') ?? ''))
        .map((script) => script.textContent ?? ''),
      styles: [...document.querySelectorAll('style')].map((style) => style.textContent ?? ''),
    }));
    const loaded = (await Promise.all(bodies)).filter((body) => body !== null);
    const scripts = loaded.filter((body) => body.type === 'script');
    const styles = loaded.filter((body) => body.type === 'stylesheet');
    const html = loaded.find((body) => body.type === 'document');
    const inlineJs = inline.scripts.join('\n');
    const inlineJsGzipBytes = inlineJs ? gz(inlineJs) : 0;
    const jsGzipBytes = scripts.reduce((sum, s) => sum + gz(s.bytes), 0) + inlineJsGzipBytes;
    const budget = route.jsBudgetKb ?? null;
    return {
      key: route.key,
      label: route.label,
      path: route.path,
      status,
      ...(status === 404 ? { note: '404 (not built yet)' } : status !== 200 ? { note: `HTTP ${status}` } : {}),
      jsFiles: scripts.length,
      jsBytes: scripts.reduce((sum, s) => sum + s.bytes.byteLength, 0) + new TextEncoder().encode(inlineJs).byteLength,
      jsGzipBytes,
      inlineJsGzipBytes,
      cssFiles: styles.length,
      cssGzipBytes: styles.reduce((sum, s) => sum + gz(s.bytes), 0) + (inline.styles.length ? gz(inline.styles.join('\n')) : 0),
      htmlGzipBytes: html ? gz(html.bytes) : 0,
      jsBudgetKb: budget,
      over: status === 200 && budget !== null && jsGzipBytes > budget * 1024,
      pageErrors,
    };
  } finally {
    await context.close();
  }
}

/** Weighs each route that has a JavaScript budget entry (a number, or null for "no target"). */
export async function benchWeight(origin: string, routes: BenchRoute[], executablePath: string): Promise<WeightFigure[]> {
  const browser = await chromium.launch({
    // The same browser and flags as the end-to-end tests.
    executablePath,
    args: CHROMIUM_ARGS,
  });
  const figures: WeightFigure[] = [];
  try {
    for (const route of routes.filter((r) => r.kind === 'page' && r.jsBudgetKb !== undefined)) {
      figures.push(await weigh(browser, origin, route));
    }
  } finally {
    await browser.close();
  }
  printWeight(figures);
  return figures;
}

export function printWeight(figures: WeightFigure[]): void {
  console.log('\nPeso de página (visitante anónimo, Chromium, tras desplazarse hasta el final; KB gzip nivel 9)');
  console.log(
    table([
      ['página', 'JS arch.', 'JS KB', 'JS KB gz', '(en línea)', 'objetivo', '', 'CSS KB gz', 'HTML KB gz'],
      ...figures.map((f) =>
        f.status !== 200
          ? [f.label, f.note ?? '', '', '', '', f.jsBudgetKb ? `<= ${f.jsBudgetKb}` : '', '', '', '']
          : [
              f.label,
              String(f.jsFiles),
              kb(f.jsBytes),
              kb(f.jsGzipBytes),
              kb(f.inlineJsGzipBytes),
              f.jsBudgetKb ? `<= ${f.jsBudgetKb}` : '-',
              f.jsBudgetKb ? (f.over ? 'OVER' : 'ok') : '',
              kb(f.cssGzipBytes),
              kb(f.htmlGzipBytes),
            ],
      ),
    ]),
  );
  for (const f of figures) {
    if (f.pageErrors.length) console.log(`  aviso: ${f.label} lanzó ${f.pageErrors.length} error(es) en el navegador: ${f.pageErrors[0]}`);
  }
}
