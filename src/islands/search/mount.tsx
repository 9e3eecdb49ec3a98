/**
 * Opens the search modal. Loaded only when someone presses the header's search button, so pages
 * stay free of React for readers who never search. The modal stays mounted once opened (hidden
 * while closed), so a second opening finds the last search; the rest of the page is inert while
 * it is open, which keeps focus and screen readers inside it.
 */
import { createRoot, type Root } from 'react-dom/client';
import SearchModal, { type SearchModalProps } from './SearchModal.tsx';

type OpenProps = Omit<SearchModalProps, 'open' | 'onClose'>;

let root: Root | undefined;
let container: HTMLElement | undefined;
let current: OpenProps | undefined;
let opener: HTMLElement | null = null;
let madeInert: HTMLElement[] = [];

export function openSearchModal(props: OpenProps): void {
  if (!container || !root) {
    container = document.createElement('div');
    container.id = 'search-modal';
    document.body.append(container);
    root = createRoot(container);
  }
  current = props;
  opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  document.documentElement.classList.add('overflow-hidden');
  madeInert = [...document.body.children].filter(
    (element): element is HTMLElement => element instanceof HTMLElement && element !== container && !element.inert,
  );
  for (const element of madeInert) element.inert = true;
  root.render(<SearchModal {...props} open onClose={close} />);
}

function close(): void {
  if (current) root?.render(<SearchModal {...current} open={false} onClose={close} />);
  for (const element of madeInert) element.inert = false;
  madeInert = [];
  document.documentElement.classList.remove('overflow-hidden');
  opener?.focus();
}
