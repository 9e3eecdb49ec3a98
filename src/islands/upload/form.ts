/** The wizard's form state, and the `asset` field of the upload built from it (SPEC §3). */
import { detectContent, documentFormat, EXECUTABLE_REFUSED_MESSAGE, HEAD_BYTES } from '../../lib/domain/content-kind.ts';
import { BROKEN_PDF_MESSAGE, latin1, PDF_TRAILER, PDF_TRAILER_BYTES } from '../../lib/domain/pdf-shape.ts';
import { notDeclaredTypeMessage, type DocType } from '../../lib/domain/upload.ts';
import type { EntityChoice } from './EntityPicker.tsx';

export interface WizardForm {
  title: string;
  docType: DocType | '';
  categoryId: string;
  description: string;
  docSource: string;
  source: EntityChoice;
  issuer: EntityChoice;
  fileUploaded: File | null;
  proof: File | null;
}

/** Error messages by field name (`title`, `sourceId`, `newSource`, `fileUploaded` …). */
export type Errors = Record<string, string>;

const NO_ENTITY: EntityChoice = { picked: undefined, creating: false, fresh: { name: '', description: '', url: '' } };

export const EMPTY_FORM: WizardForm = {
  title: '',
  docType: '',
  categoryId: '',
  description: '',
  docSource: '',
  source: NO_ENTITY,
  issuer: NO_ENTITY,
  fileUploaded: null,
  proof: null,
};

/**
 * Why the server would refuse `file` as a document of `docType`, read from its ends; null when
 * nothing is wrong there. Its first bytes, as the server reads them (`content-kind.ts`): a program,
 * or content the declared type contradicts (a PDF picked as a CSV, a page saved as .pdf); for a PDF,
 * also its trailer (`pdf-shape.ts`), the refusal a truncated download meets. Said at the files'
 * step, before the contributor signs: the server checks the whole file again anyway.
 */
export async function documentProblem(file: File, docType: DocType | ''): Promise<string | null> {
  if (docType === '' || file.size === 0) return null;
  const kind = detectContent(new Uint8Array(await file.slice(0, HEAD_BYTES).arrayBuffer()));
  if (kind === 'executable') return EXECUTABLE_REFUSED_MESSAGE;
  if (documentFormat(docType, kind) === null) return notDeclaredTypeMessage(docType);
  if (kind !== 'pdf' || docType !== 'pdf') return null;
  const tail = latin1(new Uint8Array(await file.slice(-PDF_TRAILER_BYTES).arrayBuffer()));
  return PDF_TRAILER.test(tail) ? null : BROKEN_PDF_MESSAGE;
}

/** The upload payload: picked ids with their info, or the new source/issuer, and the owner. */
export function toAssetPayload(form: WizardForm, owner: string): Record<string, unknown> {
  const entity = (choice: EntityChoice) =>
    choice.creating || !choice.picked ? { fresh: choice.fresh } : { id: choice.picked.id, info: choice.picked };
  const source = entity(form.source);
  const issuer = entity(form.issuer);
  return {
    title: form.title.trim(),
    docType: form.docType,
    description: form.description.trim(),
    categoryId: Number(form.categoryId),
    docSource: form.docSource.trim(),
    sourceId: 'id' in source ? source.id : undefined,
    sourceInfo: 'info' in source ? source.info : undefined,
    newSource: 'fresh' in source ? source.fresh : undefined,
    issuerId: 'id' in issuer ? issuer.id : undefined,
    issuerInfo: 'info' in issuer ? issuer.info : undefined,
    newIssuer: 'fresh' in issuer ? issuer.fresh : undefined,
    owner,
  };
}
