/**
 * Reads and searches a CSV off the main thread, so a large file never freezes the page. The body
 * is read as a stream: the encoding and the delimiter are decided on its first 64 KB, the text is
 * decoded and cut into rows chunk by chunk, and the rows go into a compact column store. The
 * panel gets the header and a first page as soon as there are 20 rows, and the growing count
 * while the rest arrives; searches are answered at any time, over the rows read so far, and the
 * last one again once the file is complete. Results are fuse.js's (threshold 0.15), computed over
 * the columns' distinct values rather than every cell (src/lib/tabular/search.ts).
 */
import { ColumnStore } from '../../lib/tabular/columns.ts';
import { CsvParser, sniffDialect } from '../../lib/tabular/csv.ts';
import { undefusedField } from '../../lib/tabular/csv-field.ts';
import { StreamDecoder } from '../../lib/tabular/decode.ts';
import { TableSearch } from '../../lib/tabular/search.ts';
import { TableBuilder } from '../../lib/tabular/table.ts';
import { CSV_PAGE_SIZE, FUZZINESS, type FromWorker, type ToWorker } from './protocol.ts';

/** How often the panel hears about rows read meanwhile. */
const PROGRESS_MS = 200;
/** The longest the worker parses before letting a search in. */
const SLICE_MS = 25;

let store: ColumnStore | null = null;
let search: TableSearch | null = null;
const builder = new TableBuilder((cells) => {
  if (!store) {
    store = new ColumnStore(cells.length);
    search = new TableSearch(store, FUZZINESS);
  }
  store.add(cells);
});
let loading = true;
let announced = false;
let lastRequest: { query: string; page: number } | null = null;
/** The last search's ranked rows, for paging through it. */
let cached: { key: string; rows: Uint32Array } | null = null;

const post = (message: FromWorker) => self.postMessage(message);

/** Lets queued messages (a search) run between two stretches of parsing. */
const channel = new MessageChannel();
const waiting: Array<() => void> = [];
channel.port1.onmessage = () => waiting.shift()?.();
const yieldToEvents = () =>
  new Promise<void>((resolve) => {
    waiting.push(resolve);
    channel.port2.postMessage(null);
  });

function answer(query: string, page: number): void {
  if (!store || !search || !builder.columns) return;
  lastRequest = { query, page };
  const columns = builder.visible();
  const loaded = store.rows;
  let total = loaded;
  let rowAt = (index: number) => index;
  const trimmed = query.trim();
  if (trimmed) {
    const key = `${loaded}\u0000${columns.join(',')}\u0000${trimmed.toLowerCase()}`;
    if (cached?.key !== key) cached = { key, rows: search.search(trimmed, columns) };
    const ranked = cached.rows;
    total = ranked.length;
    rowAt = (index) => ranked[index]!;
  }
  const pages = Math.max(1, Math.ceil(total / CSV_PAGE_SIZE));
  const current = Math.min(Math.max(1, page), pages);
  const rows: string[][] = [];
  for (let index = (current - 1) * CSV_PAGE_SIZE; index < Math.min(total, current * CSV_PAGE_SIZE); index += 1) {
    const row = rowAt(index);
    rows.push(columns.map((column) => store!.cell(row, column)));
  }
  const names = builder.columns;
  post({ type: 'results', query, page: current, pages, total, rows, columns: columns.map((column) => names[column]!), loading, loaded });
}

async function load(url: string, defused: boolean): Promise<void> {
  const response = await fetch(url);
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
  const decoder = new StreamDecoder();
  let parser: CsvParser | null = null;
  let delimiter = '';
  // A sheet's preview shows its cells as the spreadsheet had them: «-», not the «'-» written for Excel.
  const addFields = defused ? (fields: string[]) => builder.add(fields.map(undefusedField)) : (fields: string[]) => builder.add(fields);
  const feed = (text: string) => {
    if (!text) return;
    if (!parser) {
      const dialect = sniffDialect(text);
      delimiter = dialect.delimiter;
      parser = new CsvParser(dialect);
    }
    parser.push(text, addFields);
  };
  const announce = () => {
    // A first page's worth of rows, or whatever there is once the file is complete.
    if (announced || !builder.columns || builder.rowCount < (loading ? CSV_PAGE_SIZE : 1)) return;
    announced = true;
    const names = builder.columns;
    post({ type: 'ready', columns: builder.visible().map((column) => names[column]!), encoding: decoder.encoding ?? 'utf-8', delimiter });
  };

  const reader = response.body.getReader();
  const size = Number(response.headers.get('Content-Length')) || 0;
  let received = 0;
  let reserved = false;
  let lastProgress = performance.now();
  let sliceStart = performance.now();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.length;
    feed(decoder.push(value));
    if (!reserved && store && store.rows >= 100 && size > received) {
      // The rows to expect, from the size of the first ones: one allocation instead of a dozen.
      reserved = true;
      store.reserve(Math.ceil(((store.rows * size) / received) * 1.05));
    }
    announce();
    const now = performance.now();
    if (announced && now - lastProgress >= PROGRESS_MS) {
      lastProgress = now;
      post({ type: 'progress', loaded: store?.rows ?? 0 });
    }
    if (now - sliceStart >= SLICE_MS) {
      await yieldToEvents();
      sliceStart = performance.now();
    }
  }
  feed(decoder.end());
  (parser as CsvParser | null)?.end(addFields);
  const valid = builder.finish();
  loading = false;
  if (!valid || !store) {
    console.warn('CSV search: invalid file', url);
    post({ type: 'invalid' });
    return;
  }
  store.finish();
  announce();
  if (lastRequest) answer(lastRequest.query, lastRequest.page);
}

self.addEventListener('message', (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  if (message.type === 'load') {
    load(message.url, message.defused).catch((error: unknown) => post({ type: 'error', message: String(error) }));
  } else {
    answer(message.query, message.page);
  }
});
