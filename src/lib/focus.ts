/**
 * Keeping the keyboard's place. A button that disables itself while it works (Verificar, Cambiar
 * estado, Enviar, the wizard's Submit) sends the focus to `<body>`: a keyboard or screen reader
 * user is then back at the top of the page, and the next Tab starts over. Once the work is done,
 * the focus goes back where it makes sense to go on from, unless the user has moved it meanwhile.
 */

/** Gives the focus to `target` if nobody holds it (it fell to `<body>`, as from a button disabled under it). */
export function focusIfLost(target: HTMLElement | null | undefined): void {
  const active = document.activeElement;
  if (target && (active === null || active === document.body)) target.focus();
}
