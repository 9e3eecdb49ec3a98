/**
 * Reads and searches a CSV off the main thread, so a large file never freezes the page: fetch,
 * decode (UTF-8, Windows-1252 or code page 850), parse, index with fuse.js, answer searches.
 */
import Fuse from 'fuse.js';
import { decodeText } from '../../lib/tabular/decode.ts';
import { parseTable } from '../../lib/tabular/table.ts';
import { CSV_PAGE_SIZE, FUZZINESS, type FromWorker, type ToWorker } from './protocol.ts';

let rows: string[][] = [];
let index: Fuse<string[]> | null = null;

const post = (message: FromWorker) => self.postMessage(message);

async function load(url: string) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const { text, encoding } = decodeText(new Uint8Array(await response.arrayBuffer()));
  const table = parseTable(text);
  if (!table) {
    console.warn('CSV search: invalid file', url);
    post({ type: 'invalid' });
    return;
  }
  rows = table.rows;
  index = new Fuse(rows, {
    keys: table.columns.map((name, column) => ({ name: String(column), getFn: (row: string[]) => row[column] ?? '' })),
    threshold: FUZZINESS,
    ignoreLocation: true,
  });
  post({ type: 'ready', columns: table.columns, count: rows.length, encoding });
}

function search(query: string, page: number) {
  const found = query.trim() && index ? index.search(query.trim()).map((hit) => hit.item) : rows;
  const pages = Math.max(1, Math.ceil(found.length / CSV_PAGE_SIZE));
  const current = Math.min(Math.max(1, page), pages);
  post({
    type: 'results',
    query,
    page: current,
    pages,
    total: found.length,
    rows: found.slice((current - 1) * CSV_PAGE_SIZE, current * CSV_PAGE_SIZE),
  });
}

self.addEventListener('message', (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  if (message.type === 'load') {
    load(message.url).catch((error: unknown) => post({ type: 'error', message: String(error) }));
  } else {
    search(message.query, message.page);
  }
});
