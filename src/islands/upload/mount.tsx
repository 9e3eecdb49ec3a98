/**
 * Opens the upload wizard. Loaded only when a contributor asks for it (the dashboard's 'Subir
 * Archivo'), so nobody else downloads React, ethers and the wizard.
 */
import { flushSync } from 'react-dom';
import { createRoot, type Root } from 'react-dom/client';
import UploadWizard, { type UploadWizardProps } from './UploadWizard.tsx';

let root: Root | undefined;
let opener: HTMLElement | null = null;

/** `from`: the control that opened it, which gets the focus back on closing. */
export function openUploadWizard(props: Omit<UploadWizardProps, 'onClose'>, from?: HTMLElement): void {
  if (!root) {
    const container = document.createElement('div');
    container.id = 'upload-wizard';
    document.body.append(container);
    root = createRoot(container);
  }
  opener = from ?? (document.activeElement instanceof HTMLElement ? document.activeElement : null);
  document.documentElement.classList.add('overflow-hidden');
  setPageInert(true);
  // A new key each time: 'Close' resets the form (SPEC §4), and reopening starts afresh.
  root.render(<UploadWizard key={Date.now()} {...props} onClose={close} />);
}

/**
 * The page behind the dialog is inert while it is open: neither Tab nor a screen reader's cursor
 * reaches it (issue #20: Tab used to leave the wizard after 'Siguiente').
 */
function setPageInert(inert: boolean): void {
  for (const element of document.body.children) {
    if (element instanceof HTMLElement && element.id !== 'upload-wizard') element.inert = inert;
  }
}

function close(): void {
  // Unmounted now, not at React's next turn: the dialog's listener that keeps the focus inside
  // must be gone before the focus goes back to the opener.
  flushSync(() => root?.render(null));
  setPageInert(false);
  document.documentElement.classList.remove('overflow-hidden');
  opener?.focus();
}
