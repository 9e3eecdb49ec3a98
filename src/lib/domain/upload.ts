/**
 * Contributing a document (SPEC §2 'Upload modal', §5 'Upload wizard', §7 'POST /v2/ops/assets/add'):
 * the doc types a contributor can choose, the rules of each wizard step with the spec's messages,
 * and the confirmation message the wallet signs. Shared by the wizard and the upload endpoint, so
 * the browser and the server cannot disagree on what a valid contribution is.
 */
import { SIGNATURE_MESSAGES } from './auth-fields.ts';
import { z } from 'zod';
import { stripControls, visibleLength } from './text.ts';

/**
 * The messages the spec gives the upload in English ('Title is required', 'This URL is not
 * valid'…), kept as written; the wizard marks them `lang="en"` (`isSpecEnglish`), so that a screen
 * reader says them as English (WCAG 3.1.2), as it does the other English labels (`i18n/english.ts`).
 */
const SPEC_ENGLISH = new Set<string>();
const en = (message: string): string => {
  SPEC_ENGLISH.add(message);
  return message;
};

/** A new source's or issuer's website that is not a URL: the one message of theirs about one field. */
export const URL_NOT_VALID = en('This URL is not valid');

/** Whether `message` is one of the upload's English messages of the spec. */
export function isSpecEnglish(message: string | null | undefined): boolean {
  return message != null && SPEC_ENGLISH.has(message);
}

/**
 * The doc types the wizard offers (SPEC §2: format, name, icon, background, description), with
 * what the file picker accepts. ODS is offered too: the dashboard counts it in its own row.
 */
export const DOC_TYPES = [
  {
    format: 'pdf',
    name: 'PDF',
    icon: 'PDF',
    background: 'bg-rose-50 text-rose-700 ring-rose-200',
    description: 'Informes, resoluciones, memorias y otros documentos en PDF.',
    accept: '.pdf',
  },
  {
    format: 'xlsx',
    name: 'Excel',
    icon: 'XLS',
    background: 'bg-green-50 text-green-700 ring-green-200',
    description: 'Hojas de cálculo de Excel (.xlsx o .xls).',
    accept: '.xlsx,.xls',
  },
  {
    format: 'csv',
    name: 'CSV',
    icon: 'CSV',
    background: 'bg-emerald-50 text-emerald-700 ring-emerald-200',
    description: 'Datos tabulares en texto separado por comas o punto y coma.',
    accept: '.csv',
  },
  {
    format: 'ods',
    name: 'ODS',
    icon: 'ODS',
    background: 'bg-sky-50 text-sky-700 ring-sky-200',
    description: 'Hojas de cálculo abiertas (LibreOffice, OpenOffice).',
    accept: '.ods',
  },
  {
    format: 'other',
    name: 'Otro',
    icon: '···',
    background: 'bg-slate-50 text-slate-700 ring-slate-200',
    description: 'Cualquier otro archivo: XML, JSON, ZIP, texto…',
    accept: '',
  },
] as const;
export type DocType = (typeof DOC_TYPES)[number]['format'];
export const DOC_TYPE_VALUES = DOC_TYPES.map((type) => type.format) as [DocType, ...DocType[]];

/** Proof screenshots: images a browser shows without running anything. */
export const PROOF_ACCEPT = 'image/png,image/jpeg,image/webp';

/** Lengths the spec does not set, so that one field cannot fill the archive. */
export const FIELD_MAX = { title: 300, description: 10_000, name: 200, url: 2000 } as const;

const text = (requiredMessage: string) => z.string({ error: requiredMessage }).trim().min(1, requiredMessage);
const tooLong = (max: number) => `No puede pasar de ${max} caracteres`;

/**
 * A title or description: required, at least `min` characters a reader sees (zero-width and
 * control characters count for nothing, `text.ts`), and stored without its invisible characters.
 */
const visibleText = (requiredMessage: string, min: number, minMessage: string, max: number, singleLine: boolean) =>
  text(requiredMessage)
    .max(max, tooLong(max))
    .refine((value) => visibleLength(value) >= min, minMessage)
    .transform((value) => stripControls(value, { singleLine }));

/** SPEC §5: a valid http or https URL. */
function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** An optional id chosen from a search: a positive whole number, or nothing. */
const pickedId = z
  .union([z.number(), z.string(), z.null()])
  .optional()
  .transform((value) => {
    const id = Number(value);
    return value === null || value === undefined || value === '' || !Number.isSafeInteger(id) || id <= 0 ? undefined : id;
  });

/** A new source or issuer: name, description and url all filled ('All information is required'). */
const newEntity = z.object({
  // Names and descriptions without invisible characters: made of nothing else, they are missing.
  name: z
    .string()
    .trim()
    .max(FIELD_MAX.name, tooLong(FIELD_MAX.name))
    .transform((value) => stripControls(value, { singleLine: true }))
    .optional()
    .default(''),
  description: z
    .string()
    .trim()
    .max(FIELD_MAX.description, tooLong(FIELD_MAX.description))
    .transform((value) => stripControls(value))
    .optional()
    .default(''),
  url: z.string().trim().max(FIELD_MAX.url, tooLong(FIELD_MAX.url)).optional().default(''),
});
export type NewEntity = z.infer<typeof newEntity>;

/** Step 1 'Documento'. */
export const documentStep = z.object({
  title: visibleText(en('Title is required'), 20, en('Title must be at least 20 characters'), FIELD_MAX.title, true),
  docType: z.enum(DOC_TYPE_VALUES, { error: en('Document Type is required') }),
});

/** Step 2 'Detalles'. */
export const detailsStep = z.object({
  categoryId: pickedId.refine((id) => id !== undefined, en('Category is required')),
  description: visibleText(en('Description is required'), 100, en('Description must be at least 100 characters'), FIELD_MAX.description, false),
});

/**
 * Steps 3 and 4 share one rule: either an existing entity is picked (`{idField}` set), or a new one
 * has all three fields with a valid URL.
 */
function checkEntity(
  value: { id: number | undefined; fresh: NewEntity },
  context: z.RefinementCtx,
  names: { idField: string; newField: string; idMessage: string; creating: boolean },
): void {
  if (!names.creating) {
    if (value.id === undefined) context.addIssue({ code: 'custom', path: [names.idField], message: names.idMessage });
    return;
  }
  const { name, description, url } = value.fresh;
  if (!name || !description || !url) {
    context.addIssue({ code: 'custom', path: [names.newField], message: en('All information is required') });
  } else if (!isWebUrl(url)) {
    context.addIssue({ code: 'custom', path: [names.newField], message: URL_NOT_VALID });
  }
}

const docSource = text(en('Source URL is required'))
  .max(FIELD_MAX.url, tooLong(FIELD_MAX.url))
  .refine(isWebUrl, 'Source is not a valid URL');

/** Step 3 'Fuente': where the document is published, and the portal or site it is on. */
export const sourceStep = z
  .object({
    docSource,
    sourceId: pickedId,
    newSource: newEntity.optional().default({ name: '', description: '', url: '' }),
    creatingSource: z.boolean().optional().default(false),
  })
  .superRefine((value, context) =>
    checkEntity({ id: value.sourceId, fresh: value.newSource }, context, {
      idField: 'sourceId',
      newField: 'newSource',
      idMessage: en('Source is required'),
      creating: value.creatingSource,
    }),
  );

/** Step 4 'Emisor': the ministry or institution that issued the document. */
export const issuerStep = z
  .object({
    issuerId: pickedId,
    newIssuer: newEntity.optional().default({ name: '', description: '', url: '' }),
    creatingIssuer: z.boolean().optional().default(false),
  })
  .superRefine((value, context) =>
    checkEntity({ id: value.issuerId, fresh: value.newIssuer }, context, {
      idField: 'issuerId',
      newField: 'newIssuer',
      idMessage: en('issuerId is required'),
      creating: value.creatingIssuer,
    }),
  );

/** Step 5 'Archivos': both files chosen (browser only: the server sees the files as parts). */
export const filesStep = z.object({
  fileUploaded: z.unknown().refine((file) => file != null, en('File is required')),
  proof: z.unknown().refine((file) => file != null, en('File is required')),
});

/** An Ethereum address, as the wallet gives it. */
const address = z
  .string({ error: 'owner is required' })
  .trim()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'owner is not a valid wallet address');

/**
 * The `asset` field of the upload (SPEC §3 'Upload payload asset'): every step's fields and the
 * owner. Whether a new source or issuer is being created follows from whether an id was picked,
 * so the server needs no wizard state.
 */
export const assetPayloadSchema = z
  .object({
    title: documentStep.shape.title,
    docType: documentStep.shape.docType,
    description: detailsStep.shape.description,
    categoryId: detailsStep.shape.categoryId,
    docSource,
    sourceId: pickedId,
    newSource: newEntity.optional().default({ name: '', description: '', url: '' }),
    issuerId: pickedId,
    newIssuer: newEntity.optional().default({ name: '', description: '', url: '' }),
    owner: address,
  })
  .superRefine((value, context) => {
    checkEntity({ id: value.sourceId, fresh: value.newSource }, context, {
      idField: 'sourceId',
      newField: 'newSource',
      idMessage: en('Source is required'),
      creating: value.sourceId === undefined,
    });
    checkEntity({ id: value.issuerId, fresh: value.newIssuer }, context, {
      idField: 'issuerId',
      newField: 'newIssuer',
      idMessage: en('issuerId is required'),
      creating: value.issuerId === undefined,
    });
  });
export type AssetPayload = z.infer<typeof assetPayloadSchema>;

/** The fixed sentence every contribution's confirmation starts with (DECISIONS: Contribution). */
export const CONFIRMATION_SENTENCE =
  'Contribuyo a Archivo Abierto este documento público, y la captura adjunta prueba de dónde lo obtuve.';

export interface ConfirmationFacts {
  /** SHA-256 of the document, lower-case hex. */
  documentSha256: string;
  /** SHA-256 of the proof screenshot, lower-case hex. */
  proofSha256: string;
  /** The single-use nonce the archive issued for this upload. */
  nonce: string;
}

/**
 * The message the contributor's wallet signs: the fixed sentence, then the lines that bind it to
 * this upload alone. Rebuilt by the server from the bytes it received, never taken from the client.
 */
export function confirmationMessage({ documentSha256, proofSha256, nonce }: ConfirmationFacts): string {
  return [
    CONFIRMATION_SENTENCE,
    '',
    `Documento (SHA-256): ${documentSha256}`,
    `Prueba (SHA-256): ${proofSha256}`,
    `Nonce: ${nonce}`,
  ].join('\n');
}

/** The multipart fields of `POST /v2/ops/assets/add` besides the files. */
export const UPLOAD_FIELDS = { asset: 'asset', signature: 'signature', nonce: 'nonce', document: 'fileUploaded', proof: 'proof' } as const;

export const signatureSchema = z.string({ error: SIGNATURE_MESSAGES.required }).regex(/^0x[0-9a-fA-F]{130}$/, SIGNATURE_MESSAGES.invalid);
export const nonceSchema = z.string({ error: 'Falta el nonce de la subida (nonce).' }).regex(/^[0-9a-f]{32}$/, 'El nonce de la subida no es válido: pida uno nuevo.');

/** The first message of each field of a failed step, as the wizard shows them under the fields. */
export function stepErrors(error: z.ZodError): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? '');
    errors[field] ??= issue.message;
  }
  return errors;
}

/** What a user would call each declared type, for the message of a file that is not one. */
const DOC_TYPE_NAMES: Record<DocType, string> = {
  pdf: 'un PDF',
  xlsx: 'una hoja de Excel (.xlsx o .xls)',
  csv: 'un CSV (texto)',
  ods: 'una hoja ODS',
  other: 'un archivo',
};

/** What the upload answers (a 415, or the wizard before the signature) for a document that is not of its declared type. */
export function notDeclaredTypeMessage(docType: DocType): string {
  return `El archivo no es ${DOC_TYPE_NAMES[docType]}, como indica el tipo de documento elegido: revise el archivo o el tipo.`;
}
