/**
 * The CSV mini-search on a large file, in Chromium (issue 7, "Fast": a 50 MB, 300,000-row CSV,
 * first rows visible in under 2 s, each query answered in under 150 ms).
 *
 * The file is generated from the shape of a real fixture, the building licences of MIVHED
 * (`licencias-construccion-mivhed-2022-2025.csv`): its ten columns, with the province, municipality
 * and neighbourhood of a real row together, the building types and areas as they occur, licence
 * numbers in the real formats with other digits, and three more columns a ministry export would
 * have (address, owner, remarks) to reach 50 MB, written as Windows-1252 with `;`, CRLF and the
 * two junk rows the real file opens with. It is deterministic: every run searches the same file.
 *
 * How the archive gets the file: the benchmark does not upload it. It serves the bytes from a tiny
 * HTTP server of its own on 127.0.0.1 (the gateway's headers: `text/csv`, a length, CORS), opens
 * a real CSV record page of the running archive (the MIVHED fixture's, seeded in every archive),
 * and points the page's mini-search at that address before opening it. Everything the reader's
 * browser runs is the archive's: the record page, the panel, the worker, the streaming parser
 * and the index. Uploading instead would need a signed wallet session, an upload limit above
 * 50 MB and a new record in the archive being measured, for the same code path in the browser.
 *
 * Measured in the page: from the click on 'Buscar en el CSV' to the first result rows in the DOM
 * and the next animation frame (and to the whole file read), the longest main-thread task
 * meanwhile, then for each query, from Enter to its results in the DOM and the next frame. Memory:
 * the renderer's resident set (the page and its worker) sampled from /proc, and the worker's live
 * heap after a full collection, read through the DevTools protocol.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import { cidOf } from '../src/lib/server/storage/index.ts';
import { parseTable } from '../src/lib/tabular/table.ts';
import { fixturePath } from '../tests/helpers/fixtures.ts';
import { randomFrom } from './large-db.ts';
import { summarise, type Timing } from './stats.ts';

/** The targets. */
export const CSV_SEARCH_TARGETS = { firstRowsMs: 2000, queryMedianMs: 150 } as const;

const FIXTURE = fixturePath('files/csv/licencias-construccion-mivhed-2022-2025.csv');
const DEFAULT_ROWS = 300_000;
/** 50 MB over 300,000 rows. */
const BYTES_PER_ROW = 50_000_000 / DEFAULT_ROWS;

export interface CsvSearchFigures {
  rows: number;
  bytes: number;
  /** Click on 'Buscar en el CSV' to the first rows in the table. */
  firstRowsMs: number;
  /** Click to the whole file read and indexed (the panel's loading state ends). */
  loadedMs: number;
  /** The element count shown once loaded (the rows of the file). */
  shownCount: string;
  queries: Timing & { max: number };
  /** Each query's median, its hits as the panel shows them. */
  perQuery: Array<{ query: string; median: number; count: string }>;
  /** 'Siguiente' through the pages of the first query. */
  nextPage: Timing;
  /**
   * Resident set of the page's renderer process (the page and its worker), MB, null off Linux:
   * before the panel opens, once the file is loaded, and the largest sampled every 100 ms.
   */
  renderer: { beforeMb: number | null; loadedMb: number | null; peakMb: number | null };
  /**
   * The worker's live JavaScript heap and its typed arrays after the queries and a full garbage
   * collection, MB (through the DevTools protocol; null if it could not attach): the store itself.
   */
  workerHeap: { heapMb: number; buffersMb: number } | null;
  /** The longest main-thread task while the file loaded, 0 if none passed 50 ms (the page stays responsive). */
  longestTaskMs: number;
  pageErrors: string[];
  over: string[];
}

// ---------------------------------------------------------------------------------------------
// The file

const MONTHS = ['ENERO', 'FEBRERO', 'MARZO', 'ABRIL', 'MAYO', 'JUNIO', 'JULIO', 'AGOSTO', 'SEPTIEMBRE', 'OCTUBRE', 'NOVIEMBRE', 'DICIEMBRE'];
const STREETS = [
  'Duarte', 'Las Carreras', '27 de Febrero', 'Máximo Gómez', 'Independencia', 'Mella', 'Sánchez', 'Restauración', 'El Sol',
  'Padre Billini', 'José Contreras', 'Abraham Lincoln', 'Winston Churchill', 'Sarasota', 'Rómulo Betancourt', 'San Vicente de Paúl',
  'Charles de Gaulle', 'Hermanas Mirabal', 'Los Próceres', 'Bartolomé Colón', 'Estrella Sadhalá', 'España', 'Venezuela',
  'Las Américas', 'Jacobo Majluta', 'Núñez de Cáceres', 'Tiradentes', 'Gustavo Mejía Ricart', 'Roberto Pastoriza', 'Luperón',
  'Juan Bosch', 'Prolongación Ecológica', 'Circunvalación', 'Principal', 'Primera', 'Segunda', 'Tercera', 'Respaldo Los Mina',
];
const STREET_KINDS = ['C/', 'Calle', 'Av.', 'Avenida', 'Carretera'];
const FIRST_NAMES = [
  'José', 'Juan', 'Luis', 'Carlos', 'Ramón', 'Rafael', 'Pedro', 'Miguel', 'Francisco', 'Manuel', 'Ana', 'María', 'Rosa',
  'Carmen', 'Altagracia', 'Yolanda', 'Juana', 'Mercedes', 'Francia', 'Yesenia', 'Félix', 'Ángel', 'Héctor', 'Nelson', 'Wilson',
  'Fausto', 'Yokasta', 'Dilenia', 'Ramona', 'Xiomara', 'Daniel', 'Julio', 'Andrés', 'Milagros', 'Esperanza', 'Rubén',
];
const SURNAMES = [
  'Rodríguez', 'Pérez', 'García', 'Martínez', 'Santana', 'Reyes', 'Jiménez', 'Peña', 'Núñez', 'Rosario', 'Báez', 'Castillo',
  'Guzmán', 'Almonte', 'Tavárez', 'Polanco', 'Batista', 'Méndez', 'Féliz', 'De la Cruz', 'Vásquez', 'Ramírez', 'Mejía',
  'Encarnación', 'Cabrera', 'Ureña', 'Marte', 'Brito', 'Abreu', 'Hernández', 'Paulino', 'Ventura', 'Familia', 'Espaillat',
];
const COMPANIES = ['Constructora', 'Inversiones', 'Desarrollos', 'Inmobiliaria', 'Proyectos', 'Grupo'];
const COMPANY_KINDS = ['S.R.L.', 'S.A.', 'S.A.S.', 'E.I.R.L.'];
const REMARKS = [
  'Licencia aprobada sin observaciones', 'Pendiente de inspección final', 'Incluye área de parqueo techado',
  'Proyecto acogido a la ley 189-11 de vivienda', 'Remodelación de fachada y ampliación del segundo nivel',
  'Requiere estudio de suelo actualizado', 'Cisterna y planta eléctrica de respaldo', 'Terminación en blocks y hormigón armado',
  'Cumple retiros municipales', 'Con permiso de Medio Ambiente', 'Obra en proceso de construcción', 'Planos estructurales revisados',
  'Uso mixto: comercio en primer nivel', 'Ampliación de local comercial', 'Construcción de muro perimetral',
  'Incluye piscina y área social', 'Aprobada por el ayuntamiento', 'Torre de apartamentos de cuatro niveles',
];

const pick = <T>(next: () => number, items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
const pad2 = (value: number) => String(value).padStart(2, '0');

/**
 * A CSV of `rows` rows in the fixture's shape, about `rows * 166.7` bytes (50 MB for 300,000),
 * Windows-1252 with `;` and CRLF.
 */
export function generateLicencesCsv(rows = DEFAULT_ROWS): Buffer {
  const fixture = parseTable(fs.readFileSync(FIXTURE, 'utf8'));
  if (!fixture) throw new Error(`No puedo leer ${FIXTURE}`);
  const real = fixture.rows;
  const next = randomFrom(0x5eed);
  const columns = [...fixture.columns, 'Dirección', 'Propietario', 'Observaciones'];
  const lines: string[] = [';'.repeat(columns.length - 1), `Licencias Emitidas 2022-2025${';'.repeat(columns.length - 1)}`, columns.join(';')];
  let bytes = lines.reduce((sum, line) => sum + line.length + 2, 0);
  const start = Date.UTC(2022, 0, 1);
  const days = (Date.UTC(2025, 5, 30) - start) / 86_400_000;
  for (let row = 0; row < rows; row += 1) {
    const place = pick(next, real);
    const date = new Date(start + Math.floor(next() * days) * 86_400_000);
    const month = date.getUTCMonth();
    const licence = pick(next, real)[6]!.replace(/\d/g, () => String(Math.floor(next() * 10)));
    const areaText = pick(next, real)[8]!;
    const area = areaText ? Math.round(Number(areaText) * (0.8 + next() * 0.4) * 100) / 100 : 0;
    const cells = [
      `${pad2(month + 1)}/${pad2(date.getUTCDate())}/${date.getUTCFullYear()}`,
      MONTHS[month]!,
      String(date.getUTCFullYear()),
      place[3]!,
      place[4]!,
      place[5]!,
      licence,
      pick(next, real)[7]!,
      area ? String(area) : '',
      area ? String(Math.round(area * 61_600 * (0.9 + next() * 0.2))) : '',
      `${pick(next, STREET_KINDS)} ${pick(next, STREETS)} No. ${1 + Math.floor(next() * 400)}`,
      next() < 0.2
        ? `${pick(next, COMPANIES)} ${pick(next, SURNAMES)} ${pick(next, SURNAMES)}, ${pick(next, COMPANY_KINDS)}`
        : `${pick(next, FIRST_NAMES)} ${pick(next, SURNAMES)} ${pick(next, SURNAMES)}`,
    ];
    // The remarks, often none, make up the size: about BYTES_PER_ROW a row on average.
    const remarks: string[] = [];
    let line = `${cells.join(';')};`;
    while (bytes + line.length + 2 < (row + 1) * BYTES_PER_ROW - 16) {
      remarks.push(pick(next, REMARKS));
      line = `${cells.join(';')};${remarks.join('. ')}`;
    }
    lines.push(line);
    bytes += line.length + 2;
  }
  const text = `${lines.join('\r\n')}\r\n`;
  // Latin-1 bytes are Windows-1252's for every character used here (none in 0x80-0x9F).
  if (/[^\u0000-\u007f\u00a0-\u00ff]/.test(text)) throw new Error('El CSV generado tiene caracteres fuera de Windows-1252');
  return Buffer.from(text, 'latin1');
}

// ---------------------------------------------------------------------------------------------
// Serving it

interface ServedFile {
  url: string;
  close(): Promise<void>;
}

/** The bytes over HTTP on 127.0.0.1, with the archive gateway's headers for a CSV. */
async function serve(bytes: Buffer): Promise<ServedFile> {
  const server = http.createServer((request, response) => {
    response.writeHead(200, {
      'Content-Type': 'text/csv',
      'Content-Length': String(bytes.length),
      'Access-Control-Allow-Origin': '*',
      'Cross-Origin-Resource-Policy': 'cross-origin',
      'Cache-Control': 'no-store',
    });
    if (request.method === 'HEAD') {
      response.end();
      return;
    }
    let at = 0;
    const pump = () => {
      while (at < bytes.length) {
        const end = Math.min(bytes.length, at + 256 * 1024);
        const flowing = response.write(bytes.subarray(at, end));
        at = end;
        if (!flowing) {
          response.once('drain', pump);
          return;
        }
      }
      response.end();
    };
    pump();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/licencias-construccion-300k.csv`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// The renderer's memory

/** Processes started, directly or not, by this one whose command line says `--type=renderer`. */
function rendererPids(): number[] {
  if (!fs.existsSync('/proc/self/stat')) return [];
  const parents = new Map<number, number>();
  const renderers: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces: the fields after it start after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('--type=renderer')) renderers.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  const ours = (pid: number) => {
    for (let at = parents.get(pid); at !== undefined && at > 1; at = parents.get(at)) if (at === process.pid) return true;
    return false;
  };
  return renderers.filter(ours);
}

const residentMb = (pid: number): number => {
  try {
    const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
    return line ? Number(line[1]) / 1024 : 0;
  } catch {
    return 0;
  }
};

/** The largest of our renderers' resident sets now, MB. */
function rendererNowMb(pids = rendererPids()): number | null {
  return pids.length ? Math.max(...pids.map(residentMb)) : null;
}

/** Samples the largest renderer's resident set every 100 ms until stopped. */
function sampleRenderers(): { stop(): number | null } {
  let peak: number | null = null;
  let pids = rendererPids();
  let ticks = 0;
  const timer = setInterval(() => {
    ticks += 1;
    if (ticks % 20 === 0 || !pids.length) pids = rendererPids();
    const now = rendererNowMb(pids);
    if (now !== null) peak = Math.max(peak ?? 0, now);
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The browser

/** What a reader looks for: places, building types, typos, names, numbers, dates, a clicked cell. */
function queriesFor(bytes: Buffer): string[] {
  const lines = bytes.toString('latin1').split('\r\n');
  // A licence number, a date and an amount that are in the file.
  const sample = (lines[Math.floor(lines.length / 3)] ?? '').split(';');
  return [
    'SANTIAGO',
    'santo domingo este',
    'APARTAMENTOS',
    'piantini',
    'naco',
    'los alamos',
    'urbanizacion',
    'apartamentso',
    'santigo',
    '2024',
    'ENERO',
    'Rodríguez Peña',
    'constructora',
    'Winston Churchill',
    'Pendiente de inspección final',
    sample[6] ?? '22770 RN',
    sample[0] ?? '03/15/2023',
    sample[9] || '18067896',
    'la',
  ];
}

interface Opening {
  firstRowsMs: number;
  loadedMs: number;
  state: string;
  longestTaskMs: number;
}

/**
 * Clicks 'Buscar en el CSV' and times, in the page, the first rows and the end of the loading,
 * and the longest main-thread task meanwhile (the page must not freeze). `whileLoading` runs once
 * the first rows are shown, the file still arriving.
 */
async function openPanel(page: Page, whileLoading?: () => Promise<void>): Promise<Opening> {
  await page.evaluate(() => {
    const panel = document.querySelector<HTMLElement>('[data-csv-search]');
    const toggle = document.querySelector<HTMLButtonElement>('[data-csv-toggle]');
    if (!panel || !toggle) throw new Error('La página no tiene mini-buscador CSV');
    const opening = { firstRowsMs: -1, loadedMs: -1, state: '', longestTaskMs: 0 };
    (window as unknown as { csvOpening: typeof opening }).csvOpening = opening;
    const tasks = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) opening.longestTaskMs = Math.max(opening.longestTaskMs, entry.duration);
    });
    tasks.observe({ type: 'longtask' });
    let started = 0;
    let sawRows = false;
    const observer = new MutationObserver(() => {
      if (!sawRows && panel.querySelector('tbody tr')) {
        sawRows = true;
        requestAnimationFrame(() => (opening.firstRowsMs = performance.now() - started));
      }
      const state = panel.dataset.csvState ?? '';
      if (state === 'done' || state === 'invalid' || state === 'error') {
        observer.disconnect();
        requestAnimationFrame(() => {
          tasks.disconnect();
          const loadedMs = performance.now() - started;
          // A small file can be complete in the frame that shows its first rows.
          if (opening.firstRowsMs < 0) opening.firstRowsMs = loadedMs;
          opening.state = state;
          opening.loadedMs = loadedMs;
        });
      }
    });
    observer.observe(panel, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-csv-state'] });
    started = performance.now();
    toggle.click();
  });
  const opening = () => page.evaluate(() => (window as unknown as { csvOpening: Opening }).csvOpening);
  if (whileLoading) {
    await page.waitForFunction(() => (window as unknown as { csvOpening: Opening }).csvOpening.firstRowsMs >= 0, null, { polling: 50 });
    await whileLoading();
  }
  await page.waitForFunction(() => (window as unknown as { csvOpening: Opening }).csvOpening.loadedMs >= 0, null, { polling: 100 });
  return opening();
}

/** Types `query`, presses Enter, and times until its results are in the table and painted. */
function runQuery(page: Page, query: string): Promise<{ ms: number; count: string }> {
  return page.evaluate(
    (text) =>
      new Promise((resolve) => {
        const panel = document.querySelector<HTMLElement>('[data-csv-search]')!;
        const input = panel.querySelector<HTMLInputElement>('[data-csv-input]')!;
        const before = Number(panel.dataset.csvRenders ?? 0);
        input.value = text;
        let started = 0;
        const observer = new MutationObserver(() => {
          if (Number(panel.dataset.csvRenders ?? 0) <= before) return;
          observer.disconnect();
          requestAnimationFrame(() =>
            resolve({ ms: performance.now() - started, count: panel.querySelector('[data-csv-count]')?.textContent ?? '' }),
          );
        });
        observer.observe(panel, { attributes: true, attributeFilter: ['data-csv-renders'] });
        started = performance.now();
        input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
      }),
    query,
  );
}

/** Clicks 'Siguiente' and times until the next page is shown. */
function nextPage(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise((resolve) => {
        const panel = document.querySelector<HTMLElement>('[data-csv-search]')!;
        const before = Number(panel.dataset.csvRenders ?? 0);
        let started = 0;
        const observer = new MutationObserver(() => {
          if (Number(panel.dataset.csvRenders ?? 0) <= before) return;
          observer.disconnect();
          requestAnimationFrame(() => resolve(performance.now() - started));
        });
        observer.observe(panel, { attributes: true, attributeFilter: ['data-csv-renders'] });
        started = performance.now();
        panel.querySelector<HTMLButtonElement>('[data-csv-next]')!.click();
      }),
  );
}

/**
 * The worker's heap after a full collection. Playwright opens no session on a dedicated worker,
 * so the browser session attaches to it and relays the two calls.
 */
async function workerHeap(browser: Browser): Promise<{ heapMb: number; buffersMb: number } | null> {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const { targetInfos } = await cdp.send('Target.getTargets');
    const worker = targetInfos.find((target) => target.type === 'worker');
    if (!worker) return null;
    const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: worker.targetId, flatten: false });
    const answers = new Map<number, (result: unknown) => void>();
    cdp.on('Target.receivedMessageFromTarget', (event) => {
      const message = JSON.parse(event.message) as { id?: number; result?: unknown; error?: unknown };
      if (message.id !== undefined) answers.get(message.id)?.(message.result ?? message.error);
    });
    let id = 0;
    const call = (method: string) =>
      new Promise<unknown>((resolve) => {
        id += 1;
        answers.set(id, resolve);
        void cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params: {} }) });
      });
    await call('HeapProfiler.enable');
    await call('HeapProfiler.collectGarbage');
    const usage = (await call('Runtime.getHeapUsage')) as { usedSize?: number; backingStorageSize?: number };
    await cdp.send('Target.detachFromTarget', { sessionId });
    if (usage.usedSize === undefined) return null;
    return { heapMb: usage.usedSize / 1_000_000, buffersMb: (usage.backingStorageSize ?? 0) / 1_000_000 };
  } catch {
    return null;
  } finally {
    await cdp.detach().catch(() => {});
  }
}

/** The record page of the MIVHED fixture, a CSV every archive is seeded with. */
async function csvRecordPath(): Promise<string> {
  return `/${(await cidOf(fs.readFileSync(FIXTURE))).cid}`;
}

export interface CsvSearchOptions {
  /** A running archive, seeded with the real fixtures (e.g. the benchmark's built server). */
  baseUrl: string;
  chromiumPath: string;
  args: string[];
  /** Rows of the generated file (300,000; about 166.7 bytes each). */
  rows?: number;
  /** How many times each query runs (3). */
  rounds?: number;
  /** A folder for screenshots of the panel loading, loaded and searched (`csv-search-bench-*.png`); none if unset. */
  screenshots?: string;
}

export async function benchCsvSearch({
  baseUrl,
  chromiumPath,
  args,
  rows = DEFAULT_ROWS,
  rounds = 3,
  screenshots,
}: CsvSearchOptions): Promise<CsvSearchFigures> {
  const bytes = generateLicencesCsv(rows);
  const queries = queriesFor(bytes);
  const served = await serve(bytes);
  const browser = await chromium.launch({ executablePath: chromiumPath, args });
  let memory: ReturnType<typeof sampleRenderers> | null = null;
  try {
    const context = await browser.newContext({ locale: 'es-DO', viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(120_000);
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const recordUrl = new URL(await csvRecordPath(), baseUrl).href;
    // Network idle: the layout's splash has faded and the page's own widgets have loaded.
    const response = await page.goto(recordUrl, { waitUntil: 'networkidle' });
    if (!response?.ok()) throw new Error(`${recordUrl} respondió ${response?.status()}`);
    // The one substitution: the panel reads the generated file instead of the fixture.
    await page.evaluate((url) => {
      const panel = document.querySelector<HTMLElement>('[data-csv-search]');
      if (panel) panel.dataset.fileUrl = url;
    }, served.url);

    const panel = page.locator('[data-csv-search]');
    const shoot = async (name: string) => {
      if (screenshots) await panel.screenshot({ path: path.join(screenshots, `csv-search-bench-${name}.png`) });
    };
    const beforeMb = rendererNowMb();
    memory = sampleRenderers();
    const opened = await openPanel(page, screenshots ? () => shoot('loading') : undefined);
    if (opened.state !== 'done') throw new Error(`El mini-buscador terminó en estado ${opened.state}`);
    const loadedMb = rendererNowMb();
    const shownCount = (await page.locator('[data-csv-count]').textContent()) ?? '';
    await shoot('loaded');

    const samples: number[] = [];
    const byQuery = new Map<string, { times: number[]; count: string }>();
    for (let round = 0; round < rounds; round += 1) {
      for (const query of queries) {
        const { ms, count } = await runQuery(page, query);
        samples.push(ms);
        const entry = byQuery.get(query) ?? { times: [], count };
        entry.times.push(ms);
        byQuery.set(query, entry);
      }
    }
    const paging: number[] = [];
    await runQuery(page, queries[0]!);
    for (let i = 0; i < 10; i += 1) paging.push(await nextPage(page));
    await shoot('searched');
    const peakMb = memory.stop();

    const queryTiming = summarise(samples);
    const figures: CsvSearchFigures = {
      rows,
      bytes: bytes.length,
      firstRowsMs: opened.firstRowsMs,
      loadedMs: opened.loadedMs,
      shownCount,
      queries: { ...queryTiming, max: Math.max(...samples) },
      perQuery: [...byQuery].map(([query, entry]) => ({ query, median: summarise(entry.times).median, count: entry.count })),
      nextPage: summarise(paging),
      renderer: { beforeMb, loadedMb, peakMb },
      workerHeap: await workerHeap(browser),
      longestTaskMs: opened.longestTaskMs,
      pageErrors,
      over: [],
    };
    if (figures.firstRowsMs > CSV_SEARCH_TARGETS.firstRowsMs) figures.over.push(`primeras filas ${figures.firstRowsMs.toFixed(0)} ms`);
    if (figures.queries.median > CSV_SEARCH_TARGETS.queryMedianMs) figures.over.push(`mediana de consulta ${figures.queries.median.toFixed(0)} ms`);
    await context.close();
    return figures;
  } finally {
    memory?.stop();
    await browser.close();
    await served.close();
  }
}
