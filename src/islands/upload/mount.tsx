/**
 * Opens the upload wizard. Loaded only when a contributor asks for it (the dashboard's 'Subir
 * Archivo'), so nobody else downloads React, ethers and the wizard.
 */
import { createRoot, type Root } from 'react-dom/client';
import UploadWizard, { type UploadWizardProps } from './UploadWizard.tsx';

let root: Root | undefined;
let opener: HTMLElement | null = null;

export function openUploadWizard(props: Omit<UploadWizardProps, 'onClose'>): void {
  if (!root) {
    const container = document.createElement('div');
    container.id = 'upload-wizard';
    document.body.append(container);
    root = createRoot(container);
  }
  opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  document.documentElement.classList.add('overflow-hidden');
  // A new key each time: 'Close' resets the form (SPEC §4), and reopening starts afresh.
  root.render(<UploadWizard key={Date.now()} {...props} onClose={close} />);
}

function close(): void {
  root?.render(null);
  document.documentElement.classList.remove('overflow-hidden');
  opener?.focus();
}
