/**
 * Keeping the keyboard inside a modal dialog (WAI-ARIA dialog pattern), written once for every
 * island that opens one: the search modal and the upload wizard.
 */

/** What a keydown handler receives, React's synthetic event or the DOM's own. */
interface TabKey {
  key: string;
  shiftKey: boolean;
  preventDefault(): void;
}

const CANDIDATES = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** The controls inside `root` that Tab can reach, in document order; hidden ones left out. */
export function focusables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(CANDIDATES)].filter((element) => element.getClientRects().length > 0 && element.tabIndex >= 0);
}

/**
 * Tab from the dialog's last control goes to its first, Shift+Tab from the first to the last; and
 * focus found outside the dialog (a click on the page behind) comes back in.
 */
export function keepTabInside(event: TabKey, dialog: HTMLElement | null): void {
  if (event.key !== 'Tab' || !dialog) return;
  const inside = focusables(dialog);
  const first = inside[0];
  const last = inside.at(-1);
  if (!first || !last) return;
  const current = document.activeElement;
  if (event.shiftKey && (current === first || !dialog.contains(current))) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (current === last || !dialog.contains(current))) {
    event.preventDefault();
    first.focus();
  }
}
