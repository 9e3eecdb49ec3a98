/**
 * The one rule for the contact point the archive publishes (domain/contact-point.ts): what the
 * harvester keeps, and what the record page, its JSON-LD and the DCAT catalogue show of a stored
 * value.
 */
import { describe, expect, it } from 'vitest';
import { mailtoLink, publishableContact, publishableEmail } from '../../src/lib/domain/contact-point.ts';
import { datasetResource, catalogIris } from '../../src/lib/server/dcat/catalog.ts';
import type { CatalogRecord } from '../../src/lib/server/queries/catalog.ts';
import { cleanContact, cleanEmail } from '../../src/lib/server/harvest/catalogs/values.ts';

/** Stored values that are not one plain address: an attribute breakout, scripts, links, headers. */
const HOSTILE = [
  'x@y.z?subject=a"onmouseover=',
  'x@y.z" onmouseover="alert(1)',
  'javascript:alert(1)',
  'javascript:alert(1)//@y.z',
  'mailto:datos@one.gob.do',
  'datos@one.gob.do?cc=otro@x.do',
  'datos@one.gob.do#x',
  'da%74os@one.gob.do',
  'datos@one.gob.do\nBcc: otro@x.do',
  '<datos@one.gob.do>',
  'dos palabras@one.gob.do',
  'datos@localhost',
  `${'a'.repeat(250)}@one.gob.do`,
  '   ',
  '',
  null,
  undefined,
];

/** A record of the DCAT catalogue with this contact and nothing else declared. */
function catalogRecord(contactName: string | null, contactEmail: string | null): CatalogRecord {
  return {
    id: 7, cid: null, title: 'Presupuesto', description: null, type: 'csv', status: 'under_review', sourceUrl: null, originalUrl: null,
    fileName: null, fileSize: null, mimeType: null, fileSha256: null, walletAddress: null, createdAt: new Date(), updatedAt: new Date(),
    department: null, category: null, source: null, fileArchivedAt: null, fileCapturedFrom: null, olderVersions: [], withdrawnFromCatalogAt: null, goneFromOriginSince: null,
    issued: null, modified: null, licenseTitle: null, licenseUrl: null, keywords: [], updateFrequency: null,
    contactName, contactEmail, temporalStart: null, temporalEnd: null, temporalText: null, languages: [], spatial: [], harvested: false,
  };
}

describe('a publishable contact e-mail', () => {
  it('is one plain address, trimmed, accents and RFC 5322 characters included', () => {
    expect(publishableEmail(' datos@hacienda.gob.do ')).toBe('datos@hacienda.gob.do');
    expect(publishableEmail('josé.pérez@ministerio.gob.do')).toBe('josé.pérez@ministerio.gob.do');
    expect(publishableEmail('año{2024}|datos@municipio.gob.do')).toBe('año{2024}|datos@municipio.gob.do');
  });

  it('is nothing for a value that is not one, so no page or document links it', () => {
    for (const value of HOSTILE) {
      expect(publishableEmail(value), String(value)).toBeNull();
      expect(mailtoLink(value), String(value)).toBeNull();
    }
  });

  it('links as mailto:, percent-encoding only what an IRI may not hold', () => {
    expect(mailtoLink(' datos@one.gob.do ')).toBe('mailto:datos@one.gob.do');
    expect(mailtoLink('año{2024}|datos@municipio.gob.do')).toBe('mailto:año%7B2024%7D%7Cdatos@municipio.gob.do');
    expect(mailtoLink('a^b`c@one.gob.do')).toBe('mailto:a%5Eb%60c@one.gob.do');
  });

  it('is the rule the harvester keeps addresses by', () => {
    for (const value of HOSTILE.filter((value) => value !== 'mailto:datos@one.gob.do')) expect(cleanEmail(value), String(value)).toBeNull();
    // A harvested address passes the rule again when read.
    expect(publishableEmail(cleanEmail('MAILTO:josé.pérez@ministerio.gob.do'))).toBe('josé.pérez@ministerio.gob.do');
  });

  it('is the only address the DCAT catalogue gives a contact point', () => {
    const iris = catalogIris('https://archivo.example');
    const hasEmail = 'http://www.w3.org/2006/vcard/ns#hasEmail';
    const contactEmailOf = (contactEmail: string) => JSON.stringify(datasetResource(catalogRecord('Oficina', contactEmail), iris));
    expect(contactEmailOf('datos@one.gob.do')).toContain('mailto:datos@one.gob.do');
    expect(contactEmailOf('datos@one.gob.do')).toContain(hasEmail);
    for (const value of ['x@y.z?subject=a"onmouseover=', 'javascript:alert(1)//@y.z']) {
      const written = contactEmailOf(value);
      expect(written, value).toContain('Oficina');
      expect(written, value).not.toContain(hasEmail);
      expect(written, value).not.toContain('mailto:');
    }
  });
});

describe('a publishable contact point', () => {
  /** A stored name as an edit or a hostile catalogue could leave it: line breaks, a bidi override, a zero-width space. */
  const STORED_NAME = '  Oficina de\r\nAcceso a la\u202E Información\u200B  ';
  const SHOWN_NAME = 'Oficina de Acceso a la Información';

  it('is a name on one line without invisible characters, and a plain address; nothing when neither is left', () => {
    expect(publishableContact(STORED_NAME, ' oai@sisalril.gob.do ')).toEqual({ name: SHOWN_NAME, email: 'oai@sisalril.gob.do' });
    expect(publishableContact('\u200B \n', 'javascript:alert(1)//@y.z')).toBeNull();
    expect(publishableContact(null, 'oai@sisalril.gob.do')).toEqual({ name: null, email: 'oai@sisalril.gob.do' });
    expect(publishableContact(42, ['oai@sisalril.gob.do'])).toBeNull();
  });

  it('is what the harvester keeps and the DCAT catalogue writes, the same name in both (the JSON-LD: jsonld.test.ts)', () => {
    expect(cleanContact(STORED_NAME, 'mailto:oai@sisalril.gob.do')).toEqual({ name: SHOWN_NAME, email: 'oai@sisalril.gob.do' });
    const dcat = JSON.stringify(datasetResource(catalogRecord(STORED_NAME, null), catalogIris('https://archivo.example')));
    expect(dcat).toContain(`"${SHOWN_NAME}"`);
    expect(dcat).not.toMatch(/\\u202e|\\r|\u202E/i);
  });
});
