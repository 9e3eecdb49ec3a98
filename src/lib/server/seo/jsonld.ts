/**
 * schema.org structured data for search engines (DECISIONS: "schema.org `Dataset` JSON-LD on record
 * pages"): pure builders from what the query layer returns to plain objects the layout serialises.
 * DCAT reading: a record is a Dataset, its archived file a DataDownload, its department the publisher.
 *
 * What the original's catalogue says of a record (`db/catalogue-facts.ts`) goes where schema.org
 * has a place for it: the period its data covers as `temporalCoverage`, and whom to ask as the
 * publisher's `contactPoint` (schema.org has no contact on a Dataset itself, so a record with no
 * named institution does not state one), its languages and areas as `inLanguage` and
 * `spatialCoverage`, as the DCAT catalogue states them (`statedLanguages`, `statedAreas`). Its update frequency has no schema.org property on a
 * Dataset (`repeatFrequency` belongs to a Schedule, of events): it is published in the DCAT
 * catalogue (`dct:accrualPeriodicity`) and shown on the page, not here.
 *
 * Dates, as the DCAT catalogue states them (`dcat/catalog.ts`): the Dataset's `datePublished` and
 * `dateModified` are the original's, as its catalogue declared them, and absent when unknown (a
 * hand upload); when the archive listed the record and last changed its description are the
 * record page's, the `ItemPage` the Dataset is the main entity of (DCAT's catalogue record).
 */
import { declaredDate } from '../../domain/calendar-day.ts';
import { ASSET_TYPES, LIMITS } from '../../domain/constants.ts';
import { publishableContact } from '../../domain/contact-point.ts';
import type { GroupEntity } from '../../domain/groups.ts';
import { t } from '../../i18n/index.ts';
import { absoluteUrl, collectionPath, recordPath } from '../../paths.ts';
import type { GroupItem } from '../queries/groups.ts';
import type { OriginFacts, RecordDetail, RecordRow } from '../queries/records.ts';
import { languageTag, placeName, statedAreas, statedLanguages } from '../dcat/vocabularies.ts';

export type JsonLdValue = string | number | boolean | JsonLd | JsonLdValue[];
export interface JsonLd {
  [key: string]: JsonLdValue;
}

/**
 * Drops null and undefined (in objects and arrays) and the empty arrays and objects they leave, so
 * an unknown fact is absent rather than `null`: validators treat a present null as a wrong value.
 */
export function compact(value: unknown): JsonLdValue | undefined {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) {
    const items = value.map(compact).filter((item): item is JsonLdValue => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value)
      .map(([key, item]) => [key, compact(item)] as const)
      .filter((entry): entry is readonly [string, JsonLdValue] => entry[1] !== undefined);
    return entries.length > 0 ? Object.fromEntries(entries) : undefined;
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return undefined;
}

function document(value: object): JsonLd {
  return (compact(value) ?? {}) as JsonLd;
}

/** The archive itself, as the catalogue every record and collection belongs to. */
function archiveCatalog(origin: string) {
  return { '@type': 'DataCatalog', name: t('site.name'), url: absoluteUrl(origin, '/dashboard') };
}

function organization(department: NonNullable<RecordDetail['department']>, contact: ReturnType<typeof contactPoint>) {
  return {
    '@type': 'Organization',
    name: department.name,
    alternateName: department.acronym,
    url: department.website,
    contactPoint: contact,
  };
}

/**
 * Whom the original's catalogue says to ask about it, when it names anyone: checked again as the
 * harvest checked it (`publishableContact`), so a blank name or a stored value that is not an
 * address is never published, whoever wrote the row.
 */
function contactPoint({ contactName, contactEmail }: Pick<RecordDetail, 'contactName' | 'contactEmail'>) {
  const contact = publishableContact(contactName, contactEmail);
  if (!contact) return undefined;
  return { '@type': 'ContactPoint', name: contact.name ?? undefined, email: contact.email ?? undefined };
}

/**
 * The period a record's data covers as an ISO 8601 interval of calendar dates (`2017-01-01/2017-12-31`),
 * `..` standing for an open end, as schema.org writes one (`2019-01-01/..`). A coverage the
 * catalogue gave only in words is left out: for a Dataset schema.org wants the precise notation.
 */
function temporalInterval({ temporalStart: start, temporalEnd: end }: Pick<RecordDetail, 'temporalStart' | 'temporalEnd'>): string | undefined {
  if (!start && !end) return undefined;
  return `${start ?? '..'}/${end ?? '..'}`;
}

/**
 * The Dataset of one record, for its page: every record has one (issue #20), at its canonical URL;
 * a record the archive holds no file of yet has no download. The original's own dates, licence
 * and keywords come from its catalogue, when it states them.
 */
export function datasetJsonLd(record: RecordDetail & Pick<OriginFacts, 'harvested'>, origin: string): JsonLd {
  const canonical = absoluteUrl(origin, recordPath(record));
  const publisher = record.department ? organization(record.department, contactPoint(record)) : undefined;
  // `sameAs` claims the page *is* this dataset: an issuer's home page (where the seeded files were
  // published) is not, though the dataset is still based on it.
  const homePages = [record.department?.website, record.source?.url];
  const sameAs = record.sourceUrl && !homePages.includes(record.sourceUrl) ? record.sourceUrl : undefined;
  return document({
    '@context': 'https://schema.org',
    '@type': 'Dataset',
    '@id': canonical,
    name: record.title,
    // Search engines require a description; the title is the best we have when the record lacks one.
    description: record.description ?? record.title,
    url: canonical,
    identifier: record.cid ? [record.cid, { '@type': 'PropertyValue', propertyID: 'CID', value: record.cid }] : undefined,
    datePublished: record.issued && declaredDate(record.issued),
    dateModified: record.modified && declaredDate(record.modified),
    // A node of its own, without the page's IRI: the Dataset already has it as its `@id`.
    mainEntityOfPage: { '@type': 'ItemPage', url: canonical, datePublished: record.createdAt, dateModified: record.updatedAt },
    license: licenseOf(record),
    inLanguage: one(statedLanguages(record).flatMap((language) => languageTag(language) ?? [])),
    isAccessibleForFree: true,
    publisher,
    creator: publisher,
    keywords: [record.category?.title, ...record.keywords],
    temporalCoverage: temporalInterval(record),
    spatialCoverage: one(
      statedAreas(record).map((place) => {
        const { name, url } = placeName(place);
        return { '@type': 'Place', name, sameAs: url };
      }),
    ),
    isBasedOn: record.sourceUrl,
    sameAs,
    includedInDataCatalog: archiveCatalog(origin),
    distribution: record.cid
      ? [
          {
            '@type': 'DataDownload',
            name: record.fileName,
            identifier: record.cid,
            // The archive's own gateway serves the verified bytes of the CID.
            contentUrl: absoluteUrl(origin, `/ipfs/${record.cid}`),
            // A file that came without a media type is described by its format's usual one.
            encodingFormat: record.mimeType ?? ASSET_TYPES[record.type].mediaType,
            contentSize: record.fileSize !== null ? `${record.fileSize} B` : undefined,
          },
        ]
      : undefined,
  });
}

/** One value as itself, several as a list, none as nothing. */
function one<T>(values: readonly T[]): T | readonly T[] | undefined {
  return values.length <= 1 ? values[0] : values;
}

/**
 * A licence as schema.org wants it: its URL, else a CreativeWork named as the catalogue names it
 * (`license` is read as a link when it is text, and a catalogue's name for it may be anything,
 * `javascript:` included); none when the catalogue states none.
 */
function licenseOf(record: Pick<RecordDetail, 'licenseTitle' | 'licenseUrl'>): string | { '@type': 'CreativeWork'; name: string } | undefined {
  if (record.licenseUrl && /^https?:\/\//.test(record.licenseUrl)) return record.licenseUrl;
  return record.licenseTitle ? { '@type': 'CreativeWork', name: record.licenseTitle } : undefined;
}

/** What a collection page is about: a portal or website, an issuer, or a theme. */
function collectionSubject(item: GroupItem) {
  const types: Record<GroupEntity, string> = { src: 'DataCatalog', dep: 'Organization', cat: 'DefinedTerm' };
  return {
    '@type': types[item.entity],
    name: item.name,
    alternateName: item.acronym,
    description: item.description,
    url: item.url,
  };
}

/**
 * A source, department or category page: a CollectionPage about that group, whose main entity is
 * the list of the records on this page (positions count across pages, as the table does).
 */
export function collectionJsonLd(item: GroupItem, records: RecordRow[], origin: string, page: number): JsonLd {
  const first = (Math.max(1, page) - 1) * LIMITS.pageSize;
  return document({
    '@context': 'https://schema.org',
    '@type': 'CollectionPage',
    url: absoluteUrl(origin, collectionPath(item.entity, item.id, page)),
    name: item.name,
    description: item.description,
    inLanguage: 'es',
    dateModified: item.updatedAt,
    isPartOf: archiveCatalog(origin),
    about: collectionSubject(item),
    mainEntity: {
      '@type': 'ItemList',
      numberOfItems: item.records,
      itemListElement: records.map((record, index) => ({
        '@type': 'ListItem',
        position: first + index + 1,
        name: record.title,
        url: absoluteUrl(origin, recordPath(record)),
      })),
    },
  });
}
