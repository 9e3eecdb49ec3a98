/**
 * Page weight as an anonymous first-time visitor gets it, in a real Chromium, for every page a
 * visitor can open (`visitorPages`). Two readings per page: on opening (everything loaded without
 * scrolling or clicking, once the network is quiet: what first paint can need, islands on
 * `client:load`/`client:idle` included), and after scrolling to the bottom (the `client:visible`
 * islands too). Both count every script, plus the inline scripts of the HTML; stylesheets and HTML
 * are counted once. Sizes are gzipped here (level 9), one file at a time, so that figures compare
 * across servers and runs; beside them, `transfer` counts the bytes the server really sent (bodies
 * as encoded on the wire, `npm start` compressing them since issue #20, plus headers).
 */
import { CHROMIUM_ARGS } from '../tests/helpers/chromium.ts';
import { gzipSync } from 'node:zlib';
import { chromium, type Page } from '@playwright/test';
import type { BenchTargets } from './large-db.ts';
import type { BenchRoute } from './routes.ts';
import { kb, table } from './stats.ts';

/** A JavaScript target in KB gzipped, on opening the page or after scrolling through it. */
export interface JsBudget {
  kb: number;
  at: 'open' | 'scrolled';
}

export interface WeighedPage {
  key: string;
  label: string;
  path: string;
  jsBudget?: JsBudget;
  /** What a visitor gets: 200, or 404 for the not-found page. */
  expectedStatus?: number;
}

export interface WeightFigure {
  key: string;
  label: string;
  path: string;
  status: number;
  /** Where the visitor ended when the page redirected (an anonymous visitor of /profile signs in first). */
  finalPath?: string;
  /** 404 where a page was expected: the route is not built yet. */
  missing: boolean;
  /** The page answered what a visitor gets (200, or 404 for the not-found page): the figures count. */
  weighed: boolean;
  note?: string;
  /** On opening, before any scroll or click: external scripts and the inline ones. */
  open: { jsFiles: number; jsBytes: number; jsGzipBytes: number };
  /** After scrolling to the bottom: everything above plus what scrolling loaded. */
  jsFiles: number;
  /** External scripts plus inline ones, uncompressed. */
  jsBytes: number;
  jsGzipBytes: number;
  /** The inline part of the figures above. */
  inlineJsGzipBytes: number;
  /** Each external script, to see which page code or shared chrome weighs what. */
  scripts: Array<{ url: string; gzipBytes: number; atOpen: boolean }>;
  cssFiles: number;
  cssGzipBytes: number;
  htmlGzipBytes: number;
  jsBudget: JsBudget | null;
  /** The JavaScript the budget is measured against, when there is a budget. */
  budgetedGzipBytes: number | null;
  over: boolean;
  /** Uncaught errors in the page, a sign the figures miss something. */
  pageErrors: string[];
  /**
   * What went over the wire after scrolling, as the server encoded it (body plus headers): the
   * HTML, styles, scripts and everything (fonts, images, JSON) together, and the HTML's encoding.
   */
  transfer: { htmlBytes: number; cssBytes: number; jsBytes: number; totalBytes: number; htmlEncoding: string };
}

/**
 * The issue #17 targets: the sign-in page at most 30 KB of gzipped JavaScript on opening (the
 * wallet code loads on click), the reset form at most 5 KB.
 */
export const AUTH_PAGE_BUDGETS = {
  login: { kb: 30, at: 'open' },
  forgotPassword: { kb: 5, at: 'open' },
} as const satisfies Record<string, JsBudget>;

/**
 * Every page a visitor can open: the benchmark's page routes (their paths and the issues' targets
 * are defined there, measured after scrolling, as before), then the pages it does not time.
 * Per-user pages (/profile, /moderacion) are weighed as an anonymous visitor gets them: a redirect
 * to the sign-in page, which the figure shows.
 */
export function visitorPages(routes: BenchRoute[], t: BenchTargets): WeighedPage[] {
  const timed: WeighedPage[] = routes
    .filter((route) => route.kind === 'page')
    .map((route) => ({
      key: route.key,
      label: route.label,
      path: route.path,
      ...(route.jsBudgetKb ? { jsBudget: { kb: route.jsBudgetKb, at: 'scrolled' as const } } : {}),
    }));
  const record = t.seededRecord;
  const others: WeighedPage[] = [
    { key: 'group-src', label: 'grupo /group/src', path: '/group/src' },
    { key: 'group-cat', label: 'grupo /group/cat', path: '/group/cat' },
    { key: 'record-action', label: 'registro /{cid} (enlace de categoría)', path: `/${record.cid}?assetId=${record.id}` },
    { key: 'contributions', label: 'contribuciones /contribuciones/{cartera}', path: `/contribuciones/${t.wallet.address.toLowerCase()}` },
    { key: 'search', label: 'búsqueda /buscar?q=salud', path: '/buscar?q=salud' },
    { key: 'docs', label: 'documentación /docs', path: '/docs' },
    { key: 'faq', label: 'preguntas /general/faq', path: '/general/faq' },
    { key: 'contact', label: 'contacto /contacto', path: '/contacto' },
    { key: 'profile', label: 'perfil /profile', path: '/profile' },
    { key: 'moderation', label: 'moderación /moderacion', path: '/moderacion' },
    { key: 'auth-login', label: 'inicio de sesión /auth/login', path: '/auth/login', jsBudget: AUTH_PAGE_BUDGETS.login },
    { key: 'auth-forgot-password', label: 'recuperar acceso /auth/forgot-password', path: '/auth/forgot-password', jsBudget: AUTH_PAGE_BUDGETS.forgotPassword },
    { key: 'logout', label: 'cerrar sesión /logout', path: '/logout' },
    { key: 'not-found', label: 'página inexistente (404)', path: '/esta/pagina/no-existe', expectedStatus: 404 },
  ];
  const keys = new Set(timed.map((page) => page.key));
  return [...timed, ...others.filter((page) => !keys.has(page.key))];
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

/** The inline scripts (not JSON data) and styles of the page as it stands. */
function inlineCode(page: Page) {
  return page.evaluate(() => ({
    scripts: [...document.querySelectorAll('script:not([src])')]
      .filter((script) => !/json/i.test(script.getAttribute('type') ?? ''))
      .map((script) => script.textContent ?? ''),
    styles: [...document.querySelectorAll('style')].map((style) => style.textContent ?? ''),
  }));
}

type Loaded = { type: string; url: string; bytes: Uint8Array; atOpen: boolean };
type Sent = { type: string; bytes: number; encoding: string };

async function weigh(browser: Awaited<ReturnType<typeof chromium.launch>>, origin: string, visited: WeighedPage): Promise<WeightFigure> {
  const context = await browser.newContext({ locale: 'es-DO', viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  const bodies: Array<Promise<Loaded | null>> = [];
  const sent: Array<Promise<Sent | null>> = [];
  let opening = true;
  page.on('response', (response) => {
    const type = response.request().resourceType();
    // What the server sent, encoded as it was (a redirect's body too): known once the body is in.
    sent.push(
      response.finished().then(async () => {
        const sizes = await response.request().sizes();
        return { type, bytes: sizes.responseBodySize + sizes.responseHeadersSize, encoding: (await response.headerValue('content-encoding')) ?? 'identity' };
      }).catch(() => null),
    );
    if (type !== 'script' && type !== 'stylesheet' && type !== 'document') return;
    const atOpen = opening;
    bodies.push(response.body().then((bytes) => ({ type, url: response.url(), bytes, atOpen }), () => null));
  });
  const quiet = networkQuiet(page);
  try {
    const response = await page.goto(origin + visited.path, { waitUntil: 'networkidle' });
    const status = response?.status() ?? 0;
    await quiet();
    opening = false;
    const inlineAtOpen = (await inlineCode(page)).scripts.join('\n');
    await scrollThrough(page);
    await quiet();
    const inline = await inlineCode(page);
    const loaded = (await Promise.all(bodies)).filter((body) => body !== null);
    const scripts = loaded.filter((body) => body.type === 'script').map((s) => ({ ...s, gzipBytes: gz(s.bytes) }));
    const styles = loaded.filter((body) => body.type === 'stylesheet');
    const html = loaded.findLast((body) => body.type === 'document');
    const wire = (await Promise.all(sent)).filter((item) => item !== null);
    const sentAs = (type?: string) => wire.filter((item) => !type || item.type === type).reduce((total, item) => total + item.bytes, 0);
    const transfer = {
      htmlBytes: sentAs('document'),
      cssBytes: sentAs('stylesheet'),
      jsBytes: sentAs('script'),
      totalBytes: sentAs(),
      htmlEncoding: wire.findLast((item) => item.type === 'document')?.encoding ?? 'identity',
    };
    const inlineJs = inline.scripts.join('\n');
    const inlineJsGzipBytes = inlineJs ? gz(inlineJs) : 0;
    const sum = (list: typeof scripts, of: (s: (typeof scripts)[number]) => number) => list.reduce((total, s) => total + of(s), 0);
    const atOpen = scripts.filter((s) => s.atOpen);
    const open = {
      jsFiles: atOpen.length,
      jsBytes: sum(atOpen, (s) => s.bytes.byteLength) + new TextEncoder().encode(inlineAtOpen).byteLength,
      jsGzipBytes: sum(atOpen, (s) => s.gzipBytes) + (inlineAtOpen ? gz(inlineAtOpen) : 0),
    };
    const jsGzipBytes = sum(scripts, (s) => s.gzipBytes) + inlineJsGzipBytes;
    const finalUrl = new URL(page.url());
    const finalPath = finalUrl.pathname + finalUrl.search;
    const redirected = finalPath !== visited.path;
    const expected = visited.expectedStatus ?? 200;
    const missing = status === 404 && expected !== 404;
    const weighed = status === expected;
    const budget = visited.jsBudget ?? null;
    const budgetedGzipBytes = budget && weighed ? (budget.at === 'open' ? open.jsGzipBytes : jsGzipBytes) : null;
    const note = missing ? '404 (not built yet)' : !weighed ? `HTTP ${status}` : redirected ? `→ ${finalUrl.pathname}` : undefined;
    return {
      key: visited.key,
      label: visited.label,
      path: visited.path,
      status,
      ...(redirected ? { finalPath } : {}),
      missing,
      weighed,
      ...(note ? { note } : {}),
      open,
      jsFiles: scripts.length,
      jsBytes: sum(scripts, (s) => s.bytes.byteLength) + new TextEncoder().encode(inlineJs).byteLength,
      jsGzipBytes,
      inlineJsGzipBytes,
      scripts: scripts.map((s) => ({ url: s.url.startsWith(origin) ? s.url.slice(origin.length) : s.url, gzipBytes: s.gzipBytes, atOpen: s.atOpen })),
      cssFiles: styles.length,
      cssGzipBytes: styles.reduce((total, s) => total + gz(s.bytes), 0) + (inline.styles.length ? gz(inline.styles.join('\n')) : 0),
      htmlGzipBytes: html ? gz(html.bytes) : 0,
      jsBudget: budget,
      budgetedGzipBytes,
      over: budgetedGzipBytes !== null && budget !== null && budgetedGzipBytes > budget.kb * 1024,
      pageErrors,
      transfer,
    };
  } finally {
    await context.close();
  }
}

/** Weighs each page, one fresh browser context (no cache, no session) at a time. */
export async function benchWeight(origin: string, pages: WeighedPage[], executablePath: string): Promise<WeightFigure[]> {
  const browser = await chromium.launch({
    // The same browser and flags as the end-to-end tests.
    executablePath,
    args: CHROMIUM_ARGS,
  });
  const figures: WeightFigure[] = [];
  try {
    for (const page of pages) figures.push(await weigh(browser, origin, page));
  } finally {
    await browser.close();
  }
  printWeight(figures);
  return figures;
}

const AT = { open: 'al abrir', scrolled: 'tras desplazarse' } as const;

/** `<= 30 KB al abrir`, or '' without a budget. */
export function budgetText(budget: JsBudget | null): string {
  return budget ? `<= ${budget.kb} KB ${AT[budget.at]}` : '';
}

export function printWeight(figures: WeightFigure[]): void {
  console.log('\nPeso de página (visitante anónimo, Chromium; al abrir: sin desplazarse ni pulsar nada; KB gzip nivel 9; enviado: bytes en la red tal como los codificó el servidor)');
  console.log(
    table([
      ['página', 'nota', 'JS arch. al abrir', 'JS KB gz al abrir', 'JS KB gz tras desplazarse', '(en línea)', 'objetivo', '', 'CSS KB gz', 'HTML KB gz', 'HTML KB enviado', 'total KB enviado'],
      ...figures.map((f) =>
        !f.weighed
          ? [f.label, f.note ?? '', '', '', '', '', budgetText(f.jsBudget), '', '', '', '', '']
          : [
              f.label,
              f.note ?? '',
              String(f.open.jsFiles),
              kb(f.open.jsGzipBytes),
              kb(f.jsGzipBytes),
              kb(f.inlineJsGzipBytes),
              budgetText(f.jsBudget) || '-',
              f.jsBudget ? (f.over ? 'OVER' : 'ok') : '',
              kb(f.cssGzipBytes),
              kb(f.htmlGzipBytes),
              `${kb(f.transfer.htmlBytes)} (${f.transfer.htmlEncoding})`,
              kb(f.transfer.totalBytes),
            ],
      ),
    ]),
  );
  const budgeted = figures.filter((f) => f.jsBudget);
  if (budgeted.length) {
    console.log('Objetivos de JavaScript:');
    for (const f of budgeted) {
      const verdict = f.budgetedGzipBytes === null ? `sin medir (${f.note ?? `HTTP ${f.status}`})` : `${f.over ? 'NO cumplido' : 'cumplido'}: ${kb(f.budgetedGzipBytes)} KB`;
      console.log(`  ${f.label}: ${budgetText(f.jsBudget)} → ${verdict}`);
    }
  }
  for (const f of figures) {
    if (f.pageErrors.length) console.log(`  aviso: ${f.label} lanzó ${f.pageErrors.length} error(es) en el navegador: ${f.pageErrors[0]}`);
  }
}
