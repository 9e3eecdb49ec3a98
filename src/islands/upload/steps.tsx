/** The wizard's seven steps, each a plain view of the form with its errors under the fields. */
import { useId, type ReactNode } from 'react';
import { DOC_TYPES, isSpecEnglish, PROOF_ACCEPT } from '../../lib/domain/upload.ts';
import { formatBytes } from '../../lib/format.ts';
import { recordPath } from '../../lib/paths.ts';
import { truncate } from '../../lib/text.ts';
import EntityPicker from './EntityPicker.tsx';
import type { Errors, WizardForm } from './form.ts';
import { fill, type UploadLabels } from './labels.ts';

interface StepProps {
  form: WizardForm;
  update(change: Partial<WizardForm>): void;
  errors: Errors;
  labels: UploadLabels;
}

const input =
  'mt-1 w-full rounded-lg border border-slate-300 px-3 py-2 text-sm focus:border-indigo-600 aria-[invalid=true]:border-rose-500';

function Field({ id, label, hint, error, children }: { id: string; label: string; hint?: string; error?: string; children: ReactNode }) {
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">{label}</label>
      {children}
      {hint && <p id={`${id}-hint`} className="mt-1 text-xs text-slate-500">{hint}</p>}
      {error && <p id={`${id}-error`} className="mt-1 text-sm text-rose-700" role="alert" lang={isSpecEnglish(error) ? 'en' : undefined}>{error}</p>}
    </div>
  );
}

const described = (id: string, hint: boolean, error: string | undefined) => ({
  'aria-invalid': error ? true : undefined,
  'aria-describedby': [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined,
});

export function DocumentStep({ form, update, errors, labels }: StepProps) {
  const id = useId();
  return (
    <div className="space-y-5">
      <Field id={`${id}-title`} label={labels['upload.doc.title']} hint={labels['upload.doc.titleHint']} error={errors.title}>
        <input id={`${id}-title`} type="text" value={form.title} onChange={(event) => update({ title: event.target.value })} className={input} {...described(`${id}-title`, true, errors.title)} />
      </Field>
      <fieldset>
        <legend className="text-sm font-medium text-slate-700">{labels['upload.doc.type']}</legend>
        {/* The group itself says it is in error, and why: its radios are hidden behind their cards. */}
        <div
          role="radiogroup"
          aria-label={labels['upload.doc.type']}
          aria-invalid={errors.docType ? true : undefined}
          aria-describedby={errors.docType ? `${id}-docType-error` : undefined}
          className="mt-2 grid gap-2 sm:grid-cols-2"
        >
          {DOC_TYPES.map((type) => (
            <label
              key={type.format}
              className={`flex cursor-pointer items-start gap-3 rounded-xl border p-3 has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-indigo-500 ${form.docType === type.format ? 'border-indigo-600 bg-indigo-50' : 'border-slate-200 hover:border-slate-300'}`}
            >
              <input
                type="radio"
                name={`${id}-docType`}
                value={type.format}
                checked={form.docType === type.format}
                onChange={() => update({ docType: type.format, fileUploaded: null })}
                className="sr-only"
              />
              <span aria-hidden="true" className={`grid h-10 w-10 shrink-0 place-items-center rounded-lg text-xs font-bold ring-1 ${type.background}`}>{type.icon}</span>
              <span>
                <span className="block text-sm font-semibold text-slate-900">{type.name}</span>
                <span className="block text-xs text-slate-600">{type.description}</span>
              </span>
            </label>
          ))}
        </div>
        {errors.docType && <p id={`${id}-docType-error`} className="mt-1 text-sm text-rose-700" role="alert" lang={isSpecEnglish(errors.docType) ? 'en' : undefined}>{errors.docType}</p>}
      </fieldset>
    </div>
  );
}

export function DetailsStep({ form, update, errors, labels, categories }: StepProps & { categories: Array<{ id: number; title: string }> }) {
  const id = useId();
  return (
    <div className="space-y-5">
      <Field id={`${id}-category`} label={labels['upload.details.category']} error={errors.categoryId}>
        <select id={`${id}-category`} value={form.categoryId} onChange={(event) => update({ categoryId: event.target.value })} className={input} {...described(`${id}-category`, false, errors.categoryId)}>
          <option value="">{labels['upload.details.categoryPlaceholder']}</option>
          {categories.map((category) => (
            <option key={category.id} value={category.id}>{category.title}</option>
          ))}
        </select>
      </Field>
      <Field id={`${id}-description`} label={labels['upload.details.description']} hint={labels['upload.details.descriptionHint']} error={errors.description}>
        <textarea id={`${id}-description`} rows={5} value={form.description} onChange={(event) => update({ description: event.target.value })} className={input} {...described(`${id}-description`, true, errors.description)} />
        <p className="mt-1 text-right text-xs tabular-nums text-slate-500">{fill(labels['upload.details.characters'], { count: form.description.trim().length })}</p>
      </Field>
    </div>
  );
}

export function SourceStep({ form, update, errors, labels }: StepProps) {
  const id = useId();
  return (
    <div className="space-y-5">
      <Field id={`${id}-docSource`} label={labels['upload.source.docSource']} error={errors.docSource}>
        <input id={`${id}-docSource`} type="url" inputMode="url" placeholder="https://" value={form.docSource} onChange={(event) => update({ docSource: event.target.value })} className={input} {...described(`${id}-docSource`, false, errors.docSource)} />
      </Field>
      <EntityPicker
        kind="sources"
        legend={labels['upload.source.pick']}
        value={form.source}
        onChange={(source) => update({ source })}
        errors={{ picked: errors.sourceId, fresh: errors.newSource }}
        labels={labels}
      />
    </div>
  );
}

export function IssuerStep({ form, update, errors, labels }: StepProps) {
  return (
    <EntityPicker
      kind="departments"
      legend={labels['upload.issuer.pick']}
      value={form.issuer}
      onChange={(issuer) => update({ issuer })}
      errors={{ picked: errors.issuerId, fresh: errors.newIssuer }}
      labels={labels}
    />
  );
}

export function FilesStep({ form, update, errors, labels, limits }: StepProps & { limits: { document: number; proof: number } }) {
  const id = useId();
  const type = DOC_TYPES.find((candidate) => candidate.format === form.docType);
  const types = type?.accept ? type.accept.split(',').join(', ') : labels['upload.files.anyType'];
  const chosen = (file: File | null) =>
    file && <p className="mt-1 text-xs text-slate-700">{file.name} · {formatBytes(file.size)}</p>;
  return (
    <div className="space-y-5">
      <Field id={`${id}-document`} label={labels['upload.files.document']} hint={fill(labels['upload.files.documentHint'], { types, max: formatBytes(limits.document) })} error={errors.fileUploaded}>
        <input
          id={`${id}-document`}
          name="fileUploaded"
          type="file"
          accept={type?.accept || undefined}
          onChange={(event) => update({ fileUploaded: event.target.files?.[0] ?? null })}
          className={`${input} file:mr-3 file:rounded-md file:border-0 file:bg-indigo-50 file:px-3 file:py-1 file:text-indigo-800`}
          {...described(`${id}-document`, true, errors.fileUploaded)}
        />
        {chosen(form.fileUploaded)}
      </Field>
      <Field id={`${id}-proof`} label={labels['upload.files.proof']} hint={fill(labels['upload.files.proofHint'], { max: formatBytes(limits.proof) })} error={errors.proof}>
        <input
          id={`${id}-proof`}
          name="proof"
          type="file"
          accept={PROOF_ACCEPT}
          onChange={(event) => update({ proof: event.target.files?.[0] ?? null })}
          className={`${input} file:mr-3 file:rounded-md file:border-0 file:bg-indigo-50 file:px-3 file:py-1 file:text-indigo-800`}
          {...described(`${id}-proof`, true, errors.proof)}
        />
        {chosen(form.proof)}
      </Field>
    </div>
  );
}

export function ReviewStep({ form, labels, categories }: { form: WizardForm; labels: UploadLabels; categories: Array<{ id: number; title: string }> }) {
  const category = categories.find((candidate) => String(candidate.id) === form.categoryId);
  const docType = DOC_TYPES.find((candidate) => candidate.format === form.docType);
  const entity = (choice: WizardForm['source']) =>
    choice.creating || !choice.picked
      ? { name: choice.fresh.name, description: choice.fresh.description, url: choice.fresh.url, isNew: true }
      : { name: choice.picked.name, description: choice.picked.description ?? '', url: choice.picked.url ?? '', isNew: false };
  const source = entity(form.source);
  const issuer = entity(form.issuer);
  const row = (term: string, value: ReactNode) => (
    <div className="grid gap-1 py-2 sm:grid-cols-3">
      <dt className="text-sm text-slate-500">{term}</dt>
      <dd className="text-sm text-slate-900 sm:col-span-2 break-words">{value}</dd>
    </div>
  );
  const newBadge = <span className="ml-2 rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-800">{labels['upload.review.new']}</span>;
  return (
    <div>
      <p className="mb-4 rounded-lg bg-slate-50 p-3 text-sm text-slate-700">{labels['upload.review.intro']}</p>
      <dl className="divide-y divide-slate-100">
        {row(labels['upload.review.document'], (
          <>
            <span className="font-semibold">{form.title}</span>
            <span className="block text-xs text-slate-500">{docType?.name} · {category?.title}</span>
            <span className="mt-1 block text-slate-700">{truncate(form.description, 150)}</span>
          </>
        ))}
        {row(labels['upload.review.source'], (
          <>
            {truncate(source.name, 50)}{source.isNew && newBadge}
            <span className="block break-all text-xs text-slate-500">{form.docSource}</span>
          </>
        ))}
        {row(labels['upload.review.issuer'], (
          <>
            {truncate(issuer.name, 50)}{issuer.isNew && newBadge}
            {issuer.description && <span className="block text-xs text-slate-500">{truncate(issuer.description, 150)}</span>}
          </>
        ))}
        {row(labels['upload.review.files'], (
          <>
            {form.fileUploaded && <span className="block">{form.fileUploaded.name} · {formatBytes(form.fileUploaded.size)}</span>}
            {form.proof && <span className="block">{form.proof.name} · {formatBytes(form.proof.size)}</span>}
          </>
        ))}
      </dl>
    </div>
  );
}

export function DoneStep({ added, labels }: { added: { assetCID: string; assetId: number }; labels: UploadLabels }) {
  return (
    <div className="py-4 text-center">
      <p className="text-3xl font-bold text-emerald-700">{labels['upload.done.heading']}</p>
      <p className="mx-auto mt-3 max-w-lg text-sm text-slate-700">{labels['upload.done.body']}</p>
      <p className="mx-auto mt-3 max-w-lg break-all rounded-lg bg-slate-50 p-2 font-mono text-xs text-slate-800" data-cid>{added.assetCID}</p>
      <div className="mt-5 flex flex-wrap justify-center gap-3">
        <a href={recordPath({ cid: added.assetCID, id: added.assetId })} className="rounded-lg bg-emerald-700 px-4 py-2 text-sm font-semibold text-white hover:bg-emerald-800">
          {labels['upload.done.view']}
        </a>
      </div>
    </div>
  );
}
