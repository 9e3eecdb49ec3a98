/**
 * The one rule for the contact point the archive publishes (issues #18, #20): a name and an
 * e-mail address. The harvester keeps only what passes it, and everything that shows a stored
 * contact (the record page's "Cómo citar", its schema.org JSON-LD, the DCAT catalogue) checks it
 * again when reading, since a record may have been edited since it was harvested. Not the login
 * form's rule for addresses (`auth-fields.ts`): that one is the SPEC's for accounts; this one
 * accepts what catalogues hold.
 */
import { stripControls } from './text.ts';

/** The longest e-mail address (RFC 5321's path limit): anything longer is not one. */
const MAX_EMAIL_LENGTH = 254;

/**
 * An address as mail software takes it: a local part of letters, digits and RFC 5322's other
 * unquoted characters, one `@`, and a domain of dot-separated labels. Quoted local parts, IP
 * literals and the `?`, `#`, `&`, `%`, `:`, quotes and spaces that would end or change a
 * `mailto:` link, legal but never seen in a catalogue, are refused with the rest.
 */
const EMAIL = /^[\p{L}\p{N}.!$'*+/=^_`{|}~-]{1,64}@[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?(?:\.[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?)+$/u;

/** The address, trimmed, when `value` is one plain e-mail address; null for anything else. */
export function publishableEmail(value: string | null | undefined): string | null {
  const address = value?.trim();
  return address && address.length <= MAX_EMAIL_LENGTH && EMAIL.test(address) ? address : null;
}

/** What a publishable address may hold that a `mailto:` IRI may not hold as written (RFC 3987's unsafe). */
const UNSAFE_IN_MAILTO = /[{}|^`]/g;

/**
 * The `mailto:` link to a publishable address (RFC 6068), the same on a page and in RDF (vCard's
 * `hasEmail`): what an IRI may not hold is percent-encoded, everything else, accents included,
 * stays as written, for harvesters that only strip `mailto:`. Null when it is not one address.
 */
export function mailtoLink(value: string | null | undefined): string | null {
  const address = publishableEmail(value);
  if (!address) return null;
  return `mailto:${address.replace(UNSAFE_IN_MAILTO, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

/** Whom to ask about a dataset, as published: a name on one line, a plain address, or both. */
export interface PublishableContact {
  name: string | null;
  email: string | null;
}

/**
 * The contact point of `name` and `email` as the archive publishes it: the name without
 * invisible characters, on one line (a stored line break or bidi override would change how it
 * reads), the address by `publishableEmail`. Null when neither is left.
 */
export function publishableContact(name: unknown, email: unknown): PublishableContact | null {
  const contact = {
    name: typeof name === 'string' ? stripControls(name.toWellFormed(), { singleLine: true }) || null : null,
    email: typeof email === 'string' ? publishableEmail(email) : null,
  };
  return contact.name || contact.email ? contact : null;
}
