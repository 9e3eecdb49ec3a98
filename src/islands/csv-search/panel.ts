/**
 * The CSV mini-search panel of the record page (SPEC §2 'Record page', §8, §9), in plain DOM:
 * it is loaded only when a reader opens it, so the record page stays light for everyone else.
 */
import type { FromWorker, ToWorker } from './protocol.ts';

export interface PanelLabels {
  loading: string;
  invalid: string;
  error: string;
  elements: string;
  placeholder: string;
  page: string;
  noResults: string;
}

export function startCsvSearch(root: HTMLElement, fileUrl: string, labels: PanelLabels): void {
  const input = root.querySelector<HTMLInputElement>('[data-csv-input]')!;
  const status = root.querySelector<HTMLElement>('[data-csv-status]')!;
  const count = root.querySelector<HTMLElement>('[data-csv-count]')!;
  const table = root.querySelector<HTMLTableElement>('[data-csv-table]')!;
  const previous = root.querySelector<HTMLButtonElement>('[data-csv-previous]')!;
  const next = root.querySelector<HTMLButtonElement>('[data-csv-next]')!;
  const pageLabel = root.querySelector<HTMLElement>('[data-csv-page]')!;

  const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
  const send = (message: ToWorker) => worker.postMessage(message);
  let columns: string[] = [];
  let query = '';
  let page = 1;

  const search = (text: string, toPage = 1) => {
    query = text;
    page = toPage;
    send({ type: 'search', query, page });
  };

  const render = (rows: string[][], total: number, pages: number) => {
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
        const button = document.createElement('button');
        button.type = 'button';
        // textContent, never HTML: a cell of someone's file is shown, not run.
        button.textContent = cell;
        button.className = 'text-left hover:text-indigo-700 hover:underline';
        button.addEventListener('click', () => {
          input.value = cell;
          search(cell);
        });
        td.className = 'px-3 py-1.5 align-top';
        td.append(button);
      }
    }
    table.replaceChildren(head, body);
    status.textContent = total === 0 ? labels.noResults : '';
    count.textContent = labels.elements.replace('{count}', total.toLocaleString('es-DO'));
    pageLabel.textContent = labels.page.replace('{page}', String(page)).replace('{pages}', String(pages));
    previous.disabled = page <= 1;
    next.disabled = page >= pages;
  };

  worker.addEventListener('message', (event: MessageEvent<FromWorker>) => {
    const message = event.data;
    if (message.type === 'ready') {
      columns = message.columns;
      input.placeholder = labels.placeholder.replace('{columns}', columns.join(', '));
      input.disabled = false;
      search('');
    } else if (message.type === 'results') {
      page = message.page;
      render(message.rows, message.total, message.pages);
    } else if (message.type === 'invalid') {
      status.textContent = labels.invalid;
    } else {
      console.error('CSV search:', message.message);
      status.textContent = labels.error;
    }
  });

  input.addEventListener('keydown', (event) => {
    // SPEC §5: the search runs only on Enter.
    if (event.key === 'Enter') search(input.value);
  });
  previous.addEventListener('click', () => search(query, page - 1));
  next.addEventListener('click', () => search(query, page + 1));
  status.textContent = labels.loading;
  send({ type: 'load', url: fileUrl });
}
