/**
 * The search modal (SPEC §2 'Search modal', §4, §8, §9): a full-screen dialog whose text box
 * searches on Enter only. 'Buscador' lists 5 records, 'Ministerios o instituciónes' 5 departments,
 * 'Categorias' the categories matching the query (all of them when none does), and a signed-in
 * wallet sees its 5 latest uploads. Failed calls are only logged; following any link clears the
 * results 1 s later. The component stays mounted while closed, so reopening finds the last search.
 */
import { pickPlural } from '../../lib/i18n/plural.ts';
import { useStore } from '@nanostores/react';
import { useEffect, useRef, useState, type MouseEvent, type SubmitEvent } from 'react';
import { fetchCategories, fetchLatestUploads, searchAssets, searchDepartments, type FoundGroup } from '../../lib/api/search.ts';
import { SEARCH_BOX_MAX } from '../../lib/domain/constants.ts';
import { boundedSearchText } from '../../lib/domain/search-text.ts';
import { langOf } from '../../lib/i18n/english.ts';
import { $auth } from '../../lib/stores/auth.ts';
import { AssetList } from './AssetList.tsx';
import { CategoryChips, DepartmentList } from './GroupLists.tsx';
import type { SearchLabels } from './labels.ts';
import { matchCategories, searchPagePath } from './match.ts';
import { keepTabInside } from '../dialog/focus-trap.ts';

export interface SearchModalProps {
  labels: SearchLabels;
  /** Status labels by status value ('under review', 'online' …). */
  statusLabels: Record<string, string>;
  open: boolean;
  onClose(): void;
}

type Search =
  | { phase: 'idle' }
  | { phase: 'loading'; query: string }
  /** `null` where that call failed: it was logged, and its section shows nothing (SPEC §8). */
  | { phase: 'done'; query: string; assets: Awaited<ReturnType<typeof searchAssets>> | null; departments: FoundGroup[] | null };

type Uploads = { phase: 'loading' } | { phase: 'done'; items: Awaited<ReturnType<typeof fetchLatestUploads>> } | { phase: 'failed' };

/** SPEC §4/§9: the results are cleared 1 s after the user follows a link. */
const CLEAR_AFTER_NAVIGATION_MS = 1000;


const isAbort = (error: unknown) => error instanceof DOMException && error.name === 'AbortError';

export default function SearchModal({ labels, statusLabels, open, onClose }: SearchModalProps) {
  const { user } = useStore($auth);
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState<Search>({ phase: 'idle' });
  const [categories, setCategories] = useState<FoundGroup[] | null>(null);
  const [uploads, setUploads] = useState<Uploads>({ phase: 'loading' });
  const dialog = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const pending = useRef<AbortController | null>(null);
  const clearTimer = useRef<number | undefined>(undefined);

  useEffect(() => () => {
    pending.current?.abort();
    window.clearTimeout(clearTimer.current);
  }, []);

  // First focus on the text box; Escape closes.
  useEffect(() => {
    if (!open) return;
    input.current?.focus();
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key === 'Escape') onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open, onClose]);

  // The categories, once: the REST call has no filter, so they are matched here.
  useEffect(() => {
    if (!open || categories) return;
    const controller = new AbortController();
    fetchCategories(controller.signal).then(setCategories, (error: unknown) => {
      if (!isAbort(error)) console.error(error);
    });
    return () => controller.abort();
  }, [open, categories]);

  // The wallet's latest uploads, read again at each opening (it may have uploaded since).
  const account = user?.account;
  useEffect(() => {
    if (!open || !account) return;
    const controller = new AbortController();
    setUploads({ phase: 'loading' });
    fetchLatestUploads(account, controller.signal).then(
      (items) => setUploads({ phase: 'done', items }),
      (error: unknown) => {
        if (isAbort(error)) return;
        console.error(error);
        setUploads({ phase: 'failed' });
      },
    );
    return () => controller.abort();
  }, [open, account]);

  async function submit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    window.clearTimeout(clearTimer.current);
    pending.current?.abort();
    // The box takes any length (a long paste), cut at a space to what the API takes.
    const text = boundedSearchText(query);
    if (!text) {
      setSearch({ phase: 'idle' });
      return;
    }
    const controller = new AbortController();
    pending.current = controller;
    setSearch({ phase: 'loading', query: text });
    const [assets, departments] = await Promise.allSettled([searchAssets(text, controller.signal), searchDepartments(text, controller.signal)]);
    if (controller.signal.aborted) return;
    for (const result of [assets, departments]) if (result.status === 'rejected') console.error(result.reason);
    setSearch({
      phase: 'done',
      query: text,
      assets: assets.status === 'fulfilled' ? assets.value : null,
      departments: departments.status === 'fulfilled' ? departments.value : null,
    });
  }

  /** Following a link (not into a new tab) clears the results a second later. */
  function onLinkClick(event: MouseEvent<HTMLElement>) {
    const link = (event.target as Element).closest('a[href]');
    if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    window.clearTimeout(clearTimer.current);
    clearTimer.current = window.setTimeout(() => {
      pending.current?.abort();
      setQuery('');
      setSearch({ phase: 'idle' });
    }, CLEAR_AFTER_NAVIGATION_MS);
  }

  /** Tab and Shift+Tab go round inside the dialog. */
  if (!open) return null;

  const searched = search.phase === 'done' ? search.query : '';
  // 'Loading ...' and 'Results not found' are the spec's English labels, said as English.
  const statusInEnglish = search.phase === 'loading' || (search.phase !== 'idle' && search.assets?.length === 0);
  const status =
    search.phase === 'idle'
      ? labels['search.hint']
      : search.phase === 'loading'
        ? labels['search.loading']
        : search.assets?.length === 0
          ? labels['search.notFound']
          : '';
  // With results, the status is only for screen readers: what came, as «5 documentos, 2 instituciones».
  const found = (count: number, key: 'documents' | 'departments') =>
    pickPlural(count, { one: labels[`search.found.${key}.one`], other: labels[`search.found.${key}.other`] }).replace('{count}', String(count));
  // A list whose search failed (null) is not announced: a failed search is only logged (SPEC §7).
  const announced =
    status || search.phase !== 'done'
      ? status
      : [search.assets && found(search.assets.length, 'documents'), search.departments && found(search.departments.length, 'departments')].filter(Boolean).join(', ');
  const categoryMatch = categories ? matchCategories(categories, searched) : null;
  const files = { one: labels['search.files.one'], other: labels['search.files.other'] };
  const heading = 'text-sm font-semibold text-slate-900';

  return (
    <div
      ref={dialog}
      role="dialog"
      aria-modal="true"
      aria-labelledby="search-title"
      onKeyDown={(event) => keepTabInside(event, dialog.current)}
      onClick={onLinkClick}
      className="fixed inset-0 z-50 flex flex-col bg-slate-50 text-slate-800"
    >
      <div className="border-b border-slate-200 bg-white shadow-sm">
        <div className="mx-auto flex max-w-6xl items-center gap-2 px-3 py-3 sm:gap-3 sm:px-4">
          <h2 id="search-title" className="sr-only">{labels['search.title']}</h2>
          <form role="search" onSubmit={submit} className="relative min-w-0 flex-1">
            <svg aria-hidden="true" viewBox="0 0 20 20" fill="currentColor" className="pointer-events-none absolute left-3 top-1/2 h-5 w-5 -translate-y-1/2 text-slate-400">
              <path fillRule="evenodd" d="M8.5 3a5.5 5.5 0 1 0 3.3 9.9l3.65 3.65a1 1 0 0 0 1.41-1.41l-3.65-3.65A5.5 5.5 0 0 0 8.5 3ZM5 8.5a3.5 3.5 0 1 1 7 0 3.5 3.5 0 0 1-7 0Z" clipRule="evenodd" />
            </svg>
            <input
              ref={input}
              type="search"
              enterKeyHint="search"
              autoComplete="off"
              maxLength={SEARCH_BOX_MAX}
              value={query}
              onChange={(event) => setQuery(event.target.value)}
              aria-label={labels['search.input']}
              placeholder={labels['search.placeholder']}
              className="w-full rounded-xl border border-slate-300 bg-white py-2.5 pl-10 pr-3 text-base text-slate-900 placeholder:text-slate-400 focus:border-indigo-600 focus:outline-none focus:ring-2 focus:ring-indigo-600/30"
            />
          </form>
          <button type="button" onClick={onClose} className="shrink-0 rounded-lg px-3 py-2 text-sm font-medium text-slate-600 hover:bg-slate-100">
            {labels['search.close']}
          </button>
        </div>
      </div>

      <div className="flex-1 overflow-y-auto overscroll-contain">
        <div className="mx-auto grid max-w-6xl gap-6 px-3 py-5 sm:px-4 sm:py-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)] lg:gap-8">
          <div className="min-w-0 space-y-6">
            <section aria-labelledby="search-records">
              <h3 id="search-records" className={heading}>{labels['search.records']}</h3>
              <p role="status" className={status ? 'mt-2 text-sm text-slate-600' : 'sr-only'} lang={statusInEnglish ? langOf('search.notFound') : undefined} data-search-status>{announced}</p>
              {search.phase === 'done' && search.assets && search.assets.length > 0 && (
                <>
                  <AssetList assets={search.assets} statusLabels={statusLabels} noCid={labels['search.noCid']} />
                  <a href={searchPagePath(search.query)} className="mt-3 inline-block text-sm font-semibold text-indigo-700 hover:underline">
                    {labels['search.seeAll']}
                  </a>
                </>
              )}
            </section>

            {search.phase === 'done' && search.departments && (
              <section aria-labelledby="search-departments">
                <h3 id="search-departments" className={heading}>{labels['search.departments']}</h3>
                {search.departments.length === 0 ? (
                  <p className="mt-2 text-sm text-slate-600" lang={langOf('search.notFound')}>{labels['search.notFound']}</p>
                ) : (
                  <DepartmentList departments={search.departments} files={files} />
                )}
              </section>
            )}
          </div>

          <div className="min-w-0 space-y-6">
            {user && (
              <section aria-labelledby="search-latest">
                <h3 id="search-latest" className={heading}>{labels['search.latest']}</h3>
                {uploads.phase === 'loading' && <p className="mt-2 text-sm text-slate-600" lang={langOf('search.loading')}>{labels['search.loading']}</p>}
                {uploads.phase === 'done' &&
                  (uploads.items.length === 0 ? (
                    <p className="mt-2 text-sm text-slate-600">{labels['search.noUploads']}</p>
                  ) : (
                    <AssetList assets={uploads.items} statusLabels={statusLabels} noCid={labels['search.noCid']} showDate />
                  ))}
              </section>
            )}

            {categoryMatch && search.phase !== 'loading' && (
              <section aria-labelledby="search-categories">
                <h3 id="search-categories" className={heading}>{labels['search.categories']}</h3>
                {searched && categoryMatch.all && <p className="mt-2 text-sm text-slate-600">{labels['search.categoriesAll']}</p>}
                <CategoryChips categories={categoryMatch.items} files={files} />
              </section>
            )}
          </div>
        </div>
      </div>
    </div>
  );
}
