/**
 * The upload wizard (SPEC §2 'Upload modal', §4, §5): seven steps, each validated on 'Siguiente'
 * with the rules and messages shared with the server (`lib/domain/upload.ts`). On step 6 the
 * button becomes 'Submit': the files are hashed, the wallet signs the confirmation, and the upload
 * goes out with its progress shown. 'Close' resets everything and closes.
 *
 * Keyboard (issue #20): Tab and Shift+Tab stay inside the dialog (the page behind is inert, see
 * mount.tsx); a step's errors bring its first invalid field into view and focus it, and are
 * announced (role="alert"); there is one 'Close', in the header; the dialog keeps one height so
 * that 'Anterior' and 'Siguiente' stay where they are from one step to the next.
 */
import { useEffect, useRef, useState } from 'react';
import { focusIfLost } from '../../lib/focus.ts';
import { ApiError } from '../../lib/api/auth.ts';
import { fetchUploadNonce, postUpload } from '../../lib/api/upload.ts';
import {
  detailsStep,
  documentStep,
  issuerStep,
  sourceStep,
  stepErrors,
  isSpecEnglish,
} from '../../lib/domain/upload.ts';
import { formatBytes } from '../../lib/format.ts';
import { NoWalletError } from '../../lib/wallet/signin.ts';
import { OtherAccountError, sha256OfFile, signConfirmation } from '../../lib/wallet/confirm.ts';
import { fill, type UploadLabels } from './labels.ts';
import { langOf } from '../../lib/i18n/english.ts';
import { DetailsStep, DocumentStep, DoneStep, FilesStep, ReviewStep, SourceStep, IssuerStep } from './steps.tsx';
import { documentProblem, EMPTY_FORM, toAssetPayload, type WizardForm, type Errors } from './form.ts';
import { focusables, keepTabInside } from '../dialog/focus-trap.ts';

export interface UploadWizardProps {
  labels: UploadLabels;
  categories: Array<{ id: number; title: string }>;
  limits: { document: number; proof: number };
  account: string;
  accessToken: string | null;
  magicApiKey?: string;
  onClose(): void;
}

const STEPS = [1, 2, 3, 4, 5, 6, 7] as const;
type Step = (typeof STEPS)[number];

type Sending =
  | { phase: 'idle' }
  | { phase: 'hashing' }
  | { phase: 'signing' }
  | { phase: 'uploading'; sent: number }
  | { phase: 'storing' };

/** Form fields whose errors are reported under other names. */
const ERROR_FIELDS: Record<string, string[]> = {
  source: ['sourceId', 'newSource'],
  issuer: ['issuerId', 'newIssuer'],
};

const PROOF_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp']);

/** Validates one step; the errors by field, empty when the step may be left. */
function validate(step: Step, form: WizardForm, limits: UploadWizardProps['limits'], labels: UploadLabels): Errors {
  const zodErrors = (result: { success: boolean; error?: Parameters<typeof stepErrors>[0] }) =>
    result.success || !result.error ? {} : stepErrors(result.error);
  switch (step) {
    case 1:
      return zodErrors(documentStep.safeParse({ title: form.title, docType: form.docType || undefined }));
    case 2:
      return zodErrors(detailsStep.safeParse({ categoryId: form.categoryId, description: form.description }));
    case 3:
      return zodErrors(
        sourceStep.safeParse({
          docSource: form.docSource,
          sourceId: form.source.picked?.id,
          newSource: form.source.fresh,
          creatingSource: form.source.creating,
        }),
      );
    case 4:
      return zodErrors(
        issuerStep.safeParse({ issuerId: form.issuer.picked?.id, newIssuer: form.issuer.fresh, creatingIssuer: form.issuer.creating }),
      );
    case 5: {
      const errors: Errors = {};
      if (!form.fileUploaded) errors.fileUploaded = 'File is required';
      else if (form.fileUploaded.size === 0) errors.fileUploaded = labels['upload.files.empty'];
      else if (form.fileUploaded.size > limits.document) errors.fileUploaded = fill(labels['upload.files.tooLarge'], { max: formatBytes(limits.document) });
      if (!form.proof) errors.proof = 'File is required';
      else if (form.proof.size === 0) errors.proof = labels['upload.files.empty'];
      else if (!PROOF_TYPES.has(form.proof.type)) errors.proof = labels['upload.files.notImage'];
      else if (form.proof.size > limits.proof) errors.proof = fill(labels['upload.files.tooLarge'], { max: formatBytes(limits.proof) });
      return errors;
    }
    default:
      return {};
  }
}

export default function UploadWizard(props: UploadWizardProps) {
  const { labels, onClose } = props;
  const [step, setStep] = useState<Step>(1);
  const [form, setForm] = useState<WizardForm>(EMPTY_FORM);
  const [errors, setErrors] = useState<Errors>({});
  const [sending, setSending] = useState<Sending>({ phase: 'idle' });
  const [failure, setFailure] = useState<string | null>(null);
  const [added, setAdded] = useState<{ assetCID: string; assetId: number } | null>(null);
  const body = useRef<HTMLDivElement>(null);
  const dialog = useRef<HTMLDivElement>(null);
  /** Counts the refused 'Siguiente's: each brings the first error into view. */
  const [refused, setRefused] = useState(0);
  const busy = sending.phase !== 'idle';
  // The primary button is disabled while sending, which drops the focus: a failed send gives it back
  // there, to try again (its alert is announced); a finished one has step 7 focus its own button.
  const primary = useRef<HTMLButtonElement>(null);
  const wasBusy = useRef(false);
  useEffect(() => {
    if (wasBusy.current && !busy) focusIfLost(primary.current);
    wasBusy.current = busy;
  }, [busy]);

  // Each step starts at its first field, for keyboard and screen-reader users.
  useEffect(() => {
    body.current?.querySelector<HTMLElement>('input, select, textarea, a[href]')?.focus();
  }, [step]);

  // A refused step: its first invalid field (or error) into view, the field focused.
  useEffect(() => {
    if (refused === 0) return;
    const first = body.current?.querySelector<HTMLElement>('[aria-invalid="true"], [role="alert"]');
    if (!first) return;
    first.scrollIntoView({ block: 'center' });
    if (first.matches('input, select, textarea')) first.focus({ preventScroll: true });
    // A group of choices in error (the document's type): its first choice, which the group describes.
    else if (first.getAttribute('role') === 'radiogroup') first.querySelector<HTMLElement>('input')?.focus({ preventScroll: true });
  }, [refused]);

  // A failed upload's message, below the review, into view.
  useEffect(() => {
    if (failure) body.current?.querySelector<HTMLElement>('[data-upload-failure]')?.scrollIntoView({ block: 'center' });
  }, [failure]);

  // Focus that lands outside the dialog (a click on the backdrop) comes back in.
  useEffect(() => {
    const onFocus = (event: FocusEvent) => {
      const root = dialog.current;
      if (root && event.target instanceof Node && !root.contains(event.target)) focusables(root)[0]?.focus();
    };
    document.addEventListener('focusin', onFocus);
    return () => document.removeEventListener('focusin', onFocus);
  }, []);

  // Escape closes the dialog, but never throws away what was typed without asking: with the form
  // started it asks first (Escape again keeps editing). In a search box with text, Escape is the
  // box's own: it clears the box.
  const started = step < 7 && JSON.stringify(form) !== JSON.stringify(EMPTY_FORM);
  const [confirmingClose, setConfirmingClose] = useState(false);
  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key !== 'Escape' || busy) return;
      const target = event.target;
      if (target instanceof HTMLInputElement && target.type === 'search' && target.value !== '') return;
      if (confirmingClose) setConfirmingClose(false);
      else if (started) {
        askedFrom.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
        setConfirmingClose(true);
      } else onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [busy, onClose, started, confirmingClose]);

  // Leaving the page (a reload, Back, closing the tab) with the form started, or while it sends,
  // would lose it as surely: the browser asks first.
  useEffect(() => {
    if (!started && !busy) return;
    const onLeave = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', onLeave);
    return () => window.removeEventListener('beforeunload', onLeave);
  }, [started, busy]);

  // The question takes the focus on its safe answer; answered, the focus goes back where it was.
  const discardBar = useRef<HTMLDivElement>(null);
  const askedFrom = useRef<HTMLElement | null>(null);
  useEffect(() => {
    if (confirmingClose) {
      discardBar.current?.querySelector<HTMLElement>('button')?.focus();
    } else if (askedFrom.current) {
      askedFrom.current.focus();
      askedFrom.current = null;
    }
  }, [confirmingClose]);

  /** Changing a field takes its error away; the step is checked again on 'Siguiente'. */
  const update = (change: Partial<WizardForm>) => {
    setForm((current) => ({ ...current, ...change }));
    const touched = Object.keys(change).flatMap((key) => ERROR_FIELDS[key] ?? [key]);
    setErrors((current) => (touched.some((key) => key in current) ? Object.fromEntries(Object.entries(current).filter(([key]) => !touched.includes(key))) : current));
  };

  /** Whether the document picked is being read for what the server would refuse, on a 'Siguiente'. */
  const readingDocument = useRef(false);

  async function next() {
    const found = validate(step, form, props.limits, labels);
    // At the files' step, the document's first 64 KB (and a PDF's last 1 KB) are read as the
    // server reads them (`documentProblem`): a file it would refuse is said here, before the
    // signature. Read on 'Siguiente' itself, so no answer can come too late to count.
    if (step === 5 && form.fileUploaded && !found.fileUploaded) {
      if (readingDocument.current) return;
      readingDocument.current = true;
      try {
        const problem = await documentProblem(form.fileUploaded, form.docType).catch(() => null);
        if (problem) found.fileUploaded = problem;
      } finally {
        readingDocument.current = false;
      }
    }
    setErrors(found);
    if (Object.keys(found).length > 0) {
      setRefused((count) => count + 1);
      return;
    }
    if (step === 6) void submit();
    else setStep((step + 1) as Step);
  }

  async function submit() {
    const { fileUploaded, proof } = form;
    if (!fileUploaded || !proof) return;
    setFailure(null);
    try {
      setSending({ phase: 'hashing' });
      const [documentSha256, proofSha256] = [await sha256OfFile(fileUploaded), await sha256OfFile(proof)];
      const nonce = await fetchUploadNonce(props.accessToken);
      setSending({ phase: 'signing' });
      const { signature } = await signConfirmation({ documentSha256, proofSha256, nonce }, props.account, props.magicApiKey);
      setSending({ phase: 'uploading', sent: 0 });
      const result = await postUpload({
        asset: toAssetPayload(form, props.account),
        nonce,
        signature,
        document: fileUploaded,
        proof,
        accessToken: props.accessToken,
        onProgress: (sent) => setSending(sent >= 1 ? { phase: 'storing' } : { phase: 'uploading', sent }),
      });
      setAdded(result);
      setStep(7);
    } catch (error) {
      // SPEC §8 only logs a failed upload; the archive says what went wrong, in Spanish.
      console.error(error);
      setFailure(describeFailure(error, props.account, labels));
    } finally {
      setSending({ phase: 'idle' });
    }
  }

  const stepTitle = (n: Step) => labels[`upload.step.${n}`];
  /** 'Review' and 'Completed' are the spec's English step names. */
  const stepLang = (n: Step) => langOf(`upload.step.${n}`);

  return (
    <div className="fixed inset-0 z-50 flex items-center justify-center bg-slate-900/60 p-2 sm:p-6">
      <div
        ref={dialog}
        role="dialog"
        aria-modal="true"
        aria-labelledby="upload-title"
        onKeyDown={(event) => keepTabInside(event, dialog.current)}
        className="flex h-[calc(100dvh-1rem)] w-full max-w-3xl flex-col rounded-2xl bg-white shadow-xl sm:h-[min(46rem,calc(100dvh-3rem))]"
      >
        <header className="flex items-center justify-between border-b border-slate-200 px-5 py-4">
          <h2 id="upload-title" className="text-lg font-semibold text-slate-900">{labels['upload.title']}</h2>
          <button type="button" onClick={onClose} disabled={busy} className="rounded-lg px-3 py-1 text-sm text-slate-600 hover:bg-slate-100 disabled:opacity-50" lang={langOf('upload.close')}>
            {labels['upload.close']}
          </button>
        </header>

        <ol className="flex gap-1 overflow-x-auto border-b border-slate-100 px-5 py-3 text-xs" aria-label={fill(labels['upload.stepOf'], { step, total: 7 })}>
          {STEPS.map((n) => (
            <li
              key={n}
              aria-current={n === step ? 'step' : undefined}
              className={`flex shrink-0 items-center gap-1.5 rounded-full px-2.5 py-1 ${n === step ? 'bg-indigo-700 text-white' : n < step ? 'bg-indigo-50 text-indigo-800' : 'bg-slate-100 text-slate-600'}`}
            >
              <span className="font-semibold tabular-nums">{n}</span>
              <span className={n === step ? '' : 'hidden md:inline'} lang={stepLang(n)}>{stepTitle(n)}</span>
            </li>
          ))}
        </ol>

        {confirmingClose && (
          <div ref={discardBar} role="alertdialog" aria-labelledby="upload-discard" className="flex flex-wrap items-center gap-3 border-b border-amber-200 bg-amber-50 px-5 py-3 text-sm text-amber-900">
            <p id="upload-discard" className="min-w-0 flex-1">{labels['upload.discard.question']}</p>
            <button type="button" onClick={() => setConfirmingClose(false)} className="rounded-lg bg-indigo-700 px-3 py-1.5 font-semibold text-white hover:bg-indigo-800">
              {labels['upload.discard.keep']}
            </button>
            <button type="button" onClick={onClose} className="rounded-lg border border-amber-300 px-3 py-1.5 font-medium text-amber-900 hover:bg-amber-100">
              {labels['upload.discard.confirm']}
            </button>
          </div>
        )}

        <div ref={body} className="min-h-0 flex-1 overflow-y-auto px-5 py-5">
          <h3 className="mb-4 text-base font-semibold text-slate-900" lang={stepLang(step)}>{stepTitle(step)}</h3>
          {step === 1 && <DocumentStep form={form} update={update} errors={errors} labels={labels} />}
          {step === 2 && <DetailsStep form={form} update={update} errors={errors} labels={labels} categories={props.categories} />}
          {step === 3 && <SourceStep form={form} update={update} errors={errors} labels={labels} />}
          {step === 4 && <IssuerStep form={form} update={update} errors={errors} labels={labels} />}
          {step === 5 && <FilesStep form={form} update={update} errors={errors} labels={labels} limits={props.limits} />}
          {step === 6 && <ReviewStep form={form} labels={labels} categories={props.categories} />}
          {step === 7 && added && <DoneStep added={added} labels={labels} />}

          {step === 6 && busy && <Progress sending={sending} labels={labels} />}
          {failure && (
            <p role="alert" data-upload-failure className="mt-4 rounded-lg bg-rose-50 p-3 text-sm text-rose-800" lang={isSpecEnglish(failure) ? 'en' : undefined}>{failure}</p>
          )}
        </div>

        <footer className="flex items-center justify-between gap-3 border-t border-slate-200 px-5 py-4">
          <button
            type="button"
            onClick={() => { setErrors({}); setFailure(null); setStep((step - 1) as Step); }}
            disabled={step === 1 || step === 7 || busy}
            className="rounded-lg border border-slate-300 px-4 py-2 text-sm font-medium text-slate-700 hover:bg-slate-50 disabled:opacity-40"
          >
            {labels['upload.previous']}
          </button>
          {step < 7 ? (
            <button
              ref={primary}
              type="button"
              onClick={() => void next()}
              disabled={busy}
              className="rounded-lg bg-indigo-700 px-5 py-2 text-sm font-semibold text-white hover:bg-indigo-800 disabled:opacity-60"
              lang={step === 6 ? langOf('upload.submit') : undefined}
            >
              {step === 6 ? (busy ? labels['upload.loading'] : labels['upload.submit']) : labels['upload.next']}
            </button>
          ) : (
            // Where 'Siguiente' was; the only 'Close' is the header's.
            <button type="button" onClick={() => { setForm(EMPTY_FORM); setAdded(null); setStep(1); }} className="rounded-lg bg-indigo-700 px-5 py-2 text-sm font-semibold text-white hover:bg-indigo-800">
              {labels['upload.done.another']}
            </button>
          )}
        </footer>
      </div>
    </div>
  );
}

function Progress({ sending, labels }: { sending: Sending; labels: UploadLabels }) {
  const text =
    sending.phase === 'hashing'
      ? labels['upload.progress.hashing']
      : sending.phase === 'signing'
        ? labels['upload.progress.signing']
        : sending.phase === 'uploading'
          ? fill(labels['upload.progress.uploading'], { percent: `${Math.round(sending.sent * 100)} %` })
          : labels['upload.progress.storing'];
  const share = sending.phase === 'uploading' ? sending.sent : sending.phase === 'storing' ? 1 : 0;
  return (
    <div className="mt-4 space-y-2" role="status" aria-live="polite">
      <p className="text-sm text-slate-700">{text}</p>
      {(sending.phase === 'uploading' || sending.phase === 'storing') && (
        <div className="h-2 rounded-full bg-slate-100" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(share * 100)}>
          <div className="h-2 rounded-full bg-indigo-600 transition-[width]" style={{ width: `${share * 100}%` }} />
        </div>
      )}
    </div>
  );
}

function describeFailure(error: unknown, account: string, labels: UploadLabels): string {
  if (error instanceof NoWalletError) return labels['upload.error.noWallet'];
  if (error instanceof OtherAccountError) return fill(labels['upload.error.otherAccount'], { account });
  if (error instanceof ApiError) {
    if (error.code === '401') return labels['upload.error.session'];
    if (error.code === '0') return labels['upload.error.network'];
    return error.message;
  }
  // EIP-1193 4001: the user refused to sign (ethers reports ACTION_REJECTED).
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 4001 || code === 'ACTION_REJECTED') return labels['upload.error.rejected'];
  return labels['upload.error.network'];
}
