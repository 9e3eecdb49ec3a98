/**
 * Opens the search modal. Loaded only when someone presses the header's search button, so pages
 * stay free of React for readers who never search. The modal stays mounted once opened (hidden
 * while closed), so a second opening finds the last search; the rest of the page is inert while
 * it is open, which keeps focus and screen readers inside it.
 *
 * Opening it adds an entry to the history, as a page would: the browser's or the phone's Back closes
 * the full-screen search instead of leaving the page (and what was typed). Closing it otherwise
 * steps back over that entry, and a link followed from it takes that entry's place, so Back from
 * the page it leads to comes straight back here.
 */
import { createRoot, type Root } from 'react-dom/client';
import SearchModal, { type SearchModalProps } from './SearchModal.tsx';

type OpenProps = Omit<SearchModalProps, 'open' | 'onClose'>;

let root: Root | undefined;
let container: HTMLElement | undefined;
let current: OpenProps | undefined;
let opener: HTMLElement | null = null;
let madeInert: HTMLElement[] = [];
/** The modal is open. */
let open = false;
/** The history entry the open modal added is the current one. */
let inHistory = false;

/** `requestClose` stepped back over the modal's entry: its popstate is the one that closes it. */
let closingByHistory = false;

function onPopState(): void {
  if (!inHistory && !closingByHistory) return;
  inHistory = false;
  closingByHistory = false;
  close();
}

/**
 * The page shown again from the browser's back-forward cache, as it was when a result was followed:
 * the modal is closed, since the history entry it stood on was replaced by the result's page.
 */
function onPageShow(event: PageTransitionEvent): void {
  if (!event.persisted || !open) return;
  inHistory = false;
  closingByHistory = false;
  close();
}

/** A plain click on a link in the modal: the page it leads to replaces the modal's history entry. */
function onLinkClick(event: MouseEvent): void {
  const link = event.target instanceof Element ? event.target.closest<HTMLAnchorElement>('a[href]') : null;
  if (!link || !inHistory || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || link.target) return;
  event.preventDefault();
  inHistory = false;
  location.replace(link.href);
}

export function openSearchModal(props: OpenProps): void {
  if (!container || !root) {
    container = document.createElement('div');
    container.id = 'search-modal';
    document.body.append(container);
    root = createRoot(container);
    window.addEventListener('popstate', onPopState);
    window.addEventListener('pageshow', onPageShow);
    container.addEventListener('click', onLinkClick);
  }
  if (!inHistory) {
    history.pushState({ ...(history.state as object | null), searchModal: true }, '');
    inHistory = true;
  }
  current = props;
  opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  document.documentElement.classList.add('overflow-hidden');
  madeInert = [...document.body.children].filter(
    (element): element is HTMLElement => element instanceof HTMLElement && element !== container && !element.inert,
  );
  for (const element of madeInert) element.inert = true;
  open = true;
  root.render(<SearchModal {...props} open onClose={requestClose} />);
}

/**
 * Escape or 'Cerrar': back over the modal's history entry, whose popstate closes it. The entry is
 * given up at once, so a second Escape before that popstate arrives (a key held down, a double tap)
 * closes nothing more and never steps back past the page.
 */
function requestClose(): void {
  if (!inHistory) return close();
  inHistory = false;
  closingByHistory = true;
  history.back();
}

function close(): void {
  open = false;
  if (current) root?.render(<SearchModal {...current} open={false} onClose={requestClose} />);
  for (const element of madeInert) element.inert = false;
  madeInert = [];
  document.documentElement.classList.remove('overflow-hidden');
  opener?.focus();
}
