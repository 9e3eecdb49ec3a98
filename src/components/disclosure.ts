/**
 * The `<details>` menus (the header's MegaMenu, WalletStatus and Notifications; a group page's
 * GroupSwitcher): Escape closes an open one and puts the focus back on its button (`<summary>`),
 * where a keyboard user opened it (issue #20), wherever the focus was inside it. Only an open menu
 * takes the key, so Escape still reaches dialogs and other menus.
 */
export function closeDisclosureOnEscape(menu: HTMLDetailsElement): void {
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || !menu.open) return;
    menu.open = false;
    menu.querySelector<HTMLElement>(':scope > summary')?.focus();
  });
}
