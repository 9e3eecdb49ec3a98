/** The wizard's form state, and the `asset` field of the upload built from it (SPEC §3). */
import type { DocType } from '../../lib/domain/upload.ts';
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
