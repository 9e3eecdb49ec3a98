/**
 * The CSV mini-search panel of the record page (SPEC §2 'Record page', §8, §9), in plain DOM:
 * it is loaded only when a reader opens it, so the record page stays light for everyone else.
 * The worker streams the file: the first rows show while the rest loads ('Loading ...' with the
 * rows read so far), and the element count grows until the file is complete.
 *
 * Keyboard (issue #20): the results are a grid that is one tab stop (a roving tabindex: the arrow
 * keys, Home and End move between cells, Enter or Space searches for a cell's value, as a click
 * does), and a polite live region announces the count of each answer.
 *
 * The panel's `data-csv-state` says where it is (`loading`, `streaming` once the first rows are
 * shown, `done`, `invalid`, `error`) and `data-csv-renders` counts the result tables shown, for
 * tests and the benchmark to wait on.
 */
import { langOf } from '../../lib/i18n/english.ts';
import { pickPlural, type PluralForm } from '../../lib/i18n/plural.ts';
import { CSV_PAGE_SIZE, type FromWorker, type ToWorker } from './protocol.ts';

export interface PanelLabels {
  loading: string;
  loadingRows: string;
  invalid: string;
  error: string;
  /** '{count} elemento' and '{count} elementos'. */
  elements: Record<PluralForm, string>;
  placeholder: string;
  page: string;
  noResults: string;
  /** '{elements} para «{query}»': what is announced after a search. */
  announceQuery: string;
  /** A cell's tooltip: what a click on it does. */
  searchValue: string;
}

const formatCount = (count: number) => count.toLocaleString('es-DO');

/**
 * Starts the panel on `fileUrl`; the returned function stops it (worker and listeners), so a
 * spreadsheet's sheet picker can start it again on another sheet.
 */
export function startCsvSearch(root: HTMLElement, fileUrl: string, labels: PanelLabels): () => void {
  const listening = new AbortController();
  const { signal } = listening;
  const input = root.querySelector<HTMLInputElement>('[data-csv-input]')!;
  const status = root.querySelector<HTMLElement>('[data-csv-status]')!;
  /** The status line says `text`, marked as English when it is one of the spec's English labels (`langOf`). */
  const say = (text: string, lang?: 'en') => {
    status.textContent = text;
    if (lang) status.lang = lang;
    else status.removeAttribute('lang');
  };
  const count = root.querySelector<HTMLElement>('[data-csv-count]')!;
  const table = root.querySelector<HTMLTableElement>('[data-csv-table]')!;
  const previous = root.querySelector<HTMLButtonElement>('[data-csv-previous]')!;
  const next = root.querySelector<HTMLButtonElement>('[data-csv-next]')!;
  const pageLabel = root.querySelector<HTMLElement>('[data-csv-page]')!;
  const announcer = root.querySelector<HTMLElement>('[data-csv-announce]');

  const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
  const send = (message: ToWorker) => worker.postMessage(message);
  let columns: string[] = [];
  let query = '';
  let page = 1;
  let renders = 0;
  let shownRows = 0;
  /** The grid's one tab stop, kept across redraws (clamped to the rows shown). */
  let active = { row: 0, column: 0 };
  let announced = '';

  const setReady = (ready: boolean) => {
    // Read-only rather than disabled while loading: the box can hold the focus from the start.
    input.readOnly = !ready;
    if (ready) input.removeAttribute('aria-disabled');
    else input.setAttribute('aria-disabled', 'true');
  };
  const announce = (text: string) => {
    if (!announcer || text === announced) return;
    announced = text;
    announcer.textContent = text;
  };
  const bodyCells = () => [...table.tBodies[0]?.rows ?? []].map((row) => [...row.cells]);
  const moveTo = (row: number, column: number, focus: boolean) => {
    const cells = bodyCells();
    if (cells.length === 0) return;
    const r = Math.max(0, Math.min(row, cells.length - 1));
    const c = Math.max(0, Math.min(column, cells[r]!.length - 1));
    for (const line of cells) for (const cell of line) cell.tabIndex = -1;
    const cell = cells[r]![c];
    if (!cell) return;
    cell.tabIndex = 0;
    active = { row: r, column: c };
    if (focus) cell.focus();
  };

  const setState = (state: 'loading' | 'streaming' | 'done' | 'invalid' | 'error') => {
    root.dataset.csvState = state;
    // The rows-read count changes five times a second: a screen reader hears the end of it.
    status.setAttribute('aria-busy', String(state === 'streaming'));
  };
  const showLoading = (loaded: number) => {
    say(labels.loadingRows.replace('{count}', formatCount(loaded)));
  };

  const search = (text: string, toPage = 1) => {
    query = text;
    page = toPage;
    send({ type: 'search', query, page });
  };

  const setColumns = (names: string[]) => {
    if (names.join('\u0000') === columns.join('\u0000')) return;
    columns = names;
    input.placeholder = labels.placeholder.replace('{columns}', columns.join(', '));
  };

  const showCount = (total: number, pages: number) => {
    count.textContent = pickPlural(total, labels.elements).replace('{count}', formatCount(total));
    pageLabel.textContent = labels.page.replace('{page}', String(page)).replace('{pages}', String(pages));
    previous.disabled = page <= 1;
    next.disabled = page >= pages;
  };

  const render = (rows: string[][], total: number, pages: number) => {
    const hadFocus = table.contains(document.activeElement);
    const head = document.createElement('thead');
    const headRow = head.insertRow();
    for (const name of columns) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = name;
      th.className = 'sticky top-0 bg-white px-3 py-2 text-left text-xs font-semibold text-slate-500';
      headRow.append(th);
    }
    const body = document.createElement('tbody');
    for (const row of rows) {
      const tr = body.insertRow();
      tr.className = 'border-t border-slate-100';
      for (const cell of row) {
        const td = tr.insertCell();
        // textContent, never HTML: a cell of someone's file is shown, not run.
        td.textContent = cell;
        td.title = labels.searchValue;
        td.tabIndex = -1;
        td.className = 'cursor-pointer px-3 py-1.5 align-top hover:text-indigo-700 hover:underline';
      }
    }
    table.replaceChildren(head, body);
    moveTo(active.row, active.column, hadFocus);
    shownRows = rows.length;
    showCount(total, pages);
    renders += 1;
    root.dataset.csvRenders = String(renders);
  };

  // SPEC §2: a click on a cell searches for its text; Enter or Space on the focused cell too.
  const searchCell = (cell: HTMLTableCellElement) => {
    const text = cell.textContent ?? '';
    input.value = text;
    search(text);
  };
  table.addEventListener('click', (event) => {
    const cell = (event.target as Element).closest<HTMLTableCellElement>('tbody td');
    if (!cell) return;
    moveTo((cell.parentElement as HTMLTableRowElement).sectionRowIndex, cell.cellIndex, true);
    searchCell(cell);
  }, { signal });
  table.addEventListener('keydown', (event) => {
    const cell = (event.target as Element).closest<HTMLTableCellElement>('tbody td');
    if (!cell) return;
    const last = bodyCells().length - 1;
    const moves: Record<string, [number, number]> = {
      ArrowUp: [active.row - 1, active.column],
      ArrowDown: [active.row + 1, active.column],
      ArrowLeft: [active.row, active.column - 1],
      ArrowRight: [active.row, active.column + 1],
      Home: event.ctrlKey ? [0, 0] : [active.row, 0],
      End: event.ctrlKey ? [last, Number.MAX_SAFE_INTEGER] : [active.row, Number.MAX_SAFE_INTEGER],
    };
    const move = moves[event.key];
    if (move) {
      event.preventDefault();
      moveTo(move[0], move[1], true);
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      searchCell(cell);
    }
  }, { signal });

  worker.addEventListener('message', (event: MessageEvent<FromWorker>) => {
    const message = event.data;
    if (message.type === 'ready') {
      setColumns(message.columns);
      setReady(true);
      setState('streaming');
      search('');
    } else if (message.type === 'results') {
      // An answer to an earlier search that a newer one has replaced is not shown.
      if (message.query !== query) return;
      page = message.page;
      setColumns(message.columns);
      render(message.rows, message.total, message.pages);
      if (message.loading) showLoading(message.loaded);
      else say(message.total === 0 ? labels.noResults : '', message.total === 0 ? langOf('csv.noResults') : undefined);
      // Each answer's count, once: a search's first page, and again when the whole file is in.
      if (!message.loading || query !== '') {
        const elements = count.textContent ?? '';
        announce(query.trim() === '' ? elements : labels.announceQuery.replace('{elements}', elements).replace('{query}', query));
      }
      setState(message.loading ? 'streaming' : 'done');
    } else if (message.type === 'progress') {
      if (root.dataset.csvState !== 'streaming') return;
      showLoading(message.loaded);
      // Without a query the results are the rows in order: the count and the pages follow the
      // file without redrawing the table under the reader's pointer, unless this page fills up.
      if (query.trim() === '' && renders > 0) {
        if (shownRows < CSV_PAGE_SIZE) search(query, page);
        else showCount(message.loaded, Math.max(1, Math.ceil(message.loaded / CSV_PAGE_SIZE)));
      }
    } else if (message.type === 'invalid') {
      // SPEC §8: the search box says so.
      input.placeholder = labels.invalid;
      say(labels.invalid, langOf('csv.invalid'));
      setState('invalid');
    } else {
      console.error('CSV search:', message.message);
      say(labels.error);
      setState('error');
    }
  });

  input.addEventListener('keydown', (event) => {
    // SPEC §5: the search runs only on Enter (once the first rows are in).
    if (event.key === 'Enter' && !input.readOnly) search(input.value);
    // Escape empties the box and shows every row again, in every browser (Firefox does not empty a
    // search box by itself); the panel takes the next Escape as 'Exit' (CsvSearch.astro).
    if (event.key === 'Escape' && input.value !== '') {
      event.preventDefault();
      input.value = '';
      if (!input.readOnly && query !== '') search('');
    }
  }, { signal });
  previous.addEventListener('click', () => search(query, page - 1), { signal });
  next.addEventListener('click', () => search(query, page + 1), { signal });
  say(labels.loading, langOf('csv.loading'));
  input.value = '';
  setReady(false);
  table.replaceChildren();
  setState('loading');
  // A spreadsheet's sheets are CSVs the archive wrote, their formula starts defused (`csvField`).
  send({ type: 'load', url: fileUrl, defused: root.dataset.defused !== undefined });
  return () => {
    listening.abort();
    worker.terminate();
  };
}
