/**
 * The `<details>` menus (the header's MegaMenu, WalletStatus and Notifications; a group page's
 * GroupSwitcher) close as a menu does once the visitor is done with it:
 * - Escape closes an open one and puts the focus back on its button (`<summary>`), where a
 *   keyboard user opened it (issue #20), wherever the focus was inside it. Only an open menu takes
 *   the key, so Escape still reaches dialogs and other menus.
 * - A press (click or tap) anywhere outside it closes it: an open panel no longer covers the page
 *   it was opened over.
 * - The focus leaving it (Tab past its last link) closes it: a keyboard user does not go on with a
 *   panel open over what they now read. A click inside it on no control moves the focus nowhere,
 *   and keeps it open.
 */
export function closeDisclosureWhenLeft(menu: HTMLDetailsElement): void {
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || !menu.open) return;
    menu.open = false;
    menu.querySelector<HTMLElement>(':scope > summary')?.focus();
  });
  // On the press, not the click: a drag that starts inside (selecting the wallet's address) and
  // ends outside is no click outside, and a tap on plain content reaches a document's `pointerdown`
  // where iOS Safari sends it no `click`.
  document.addEventListener('pointerdown', (event) => {
    if (menu.open && !event.composedPath().includes(menu)) menu.open = false;
  });
  menu.addEventListener('focusout', (event) => {
    const next = event.relatedTarget;
    if (menu.open && next instanceof Node && !menu.contains(next)) menu.open = false;
  });
}
