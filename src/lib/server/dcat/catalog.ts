/**
 * The archive as a DCAT-AP catalogue (issue #9), for other portals to harvest: ckanext-dcat (CKAN),
 * uData, data.europa.eu and datos.gob.es read DCAT-AP 2.x. One `dcat:Catalog`; every published
 * record a `dcat:Dataset`; every archived file a `dcat:Distribution` served by the archive's own
 * gateway, with its size, media type, SHA-256 and CID; departments as publishers (`foaf:Agent`);
 * categories as themes (`skos:Concept` in the archive's `skos:ConceptScheme`, plus the EU data
 * theme that fits).
 *
 * Choices a harvester will notice:
 * - `dct:identifier` of a dataset is its record id alone. ckanext-dcat and uData take the one
 *   `dct:identifier` as the key that matches a dataset across harvests; two values would make that
 *   key ambiguous. The CID, which identifies the file rather than the record, is the dataset's
 *   `adms:identifier` and the distribution's `dct:identifier` (`ipfs://{cid}`).
 * - A record without a file (metadata harvested from another portal, waiting to be archived) is a
 *   dataset without a distribution: the archive describes only copies it holds and can vouch for by
 *   checksum. Its `dcat:landingPage` is the page where its origin publishes it, one hop away.
 * - IRIs: publishers and themes are their pages on the archive (`/collection/dep/{id}`,
 *   `/collection/cat/{id}`, the scheme `/group/cat`); datasets and distributions are minted under
 *   `/catalog/dataset/{id}` from the record id, so they stay the same when a file is archived later,
 *   and catalogue records under `/catalog/record/{id}`.
 * - Two kinds of dates, as DCAT-AP separates them. A dataset's `dct:issued`/`dct:modified` are the
 *   original's own, as its catalogue declared them (harvested, `alexandrias.issued`/`modified`);
 *   the archive's are those of its description of the dataset, a `dcat:CatalogRecord` the
 *   catalogue lists (`dcat:record`) with `foaf:primaryTopic` the dataset: `dct:issued` when the
 *   record entered the archive, `dct:modified` its last change. A record without declared dates
 *   (a hand upload) has none on its dataset rather than the archive's: a harvester, ours included,
 *   would keep those as the day its issuer published it, and the catalogue record still has them.
 *   A distribution is the archive's copy, so its `dct:issued` is the archive's: when it got those
 *   bytes (the capture of that version, or the upload that created the record with its file).
 * - What the original's catalogue says of how often it is updated, whom to ask and the period it
 *   covers (harvested, `db/catalogue-facts.ts`) is published as DCAT-AP states it, and only when
 *   the record has it: `dct:accrualPeriodicity` an IRI of the EU frequency table when the table
 *   names it, and otherwise the catalogue's words as the `rdfs:label` of a `dct:Frequency` blank
 *   node (the property's range; the words are what is known, and dropping them lost a fact the
 *   record page shows; an IRI of another vocabulary stays that IRI), `dcat:contactPoint` a `vcard:Kind`
 *   (the property's range; the contact may be a person or an office, so no narrower class is
 *   claimed) with `vcard:fn` and a `mailto:` `vcard:hasEmail`, `dct:temporal` a `dct:PeriodOfTime`
 *   with `dcat:startDate`/`dcat:endDate` as `xsd:date` (records keep calendar dates) and, when the
 *   catalogue said it in words, those words as its `rdfs:label`.
 * - The checksum is SHA-256 (`spdx:checksumAlgorithm_sha256`), as DCAT-AP 3 allows; DCAT-AP 2.1's
 *   shapes still insist on SHA-1 (SEMICeu/DCAT-AP#158), which a copy kept for verification should not use.
 */
import { mailtoLink, publishableContact } from '../../domain/contact-point.ts';
import { t } from '../../i18n/index.ts';
import { collectionPath, recordIdPath, recordPath } from '../../paths.ts';
import type { CatalogueFacts } from '../db/catalogue-facts.ts';
import type { Db } from '../db/index.ts';
import { acceptWeight } from '../http/accept.ts';
import { frequencyIri } from '../harvest/catalogs/frequency.ts';
import {
  catalogPublishers,
  catalogRecordPages,
  catalogSummary,
  catalogThemes,
  latestRecordId,
  type CatalogRecord,
  type CatalogSummary,
} from '../queries/catalog.ts';
import {
  adms,
  date,
  dateTime,
  dcat,
  dct,
  foaf,
  iri,
  originDate,
  plain,
  rdfs,
  resource,
  skos,
  spdx,
  text,
  textIn,
  typed,
  vcard,
  webIri,
  xsd,
  LANGUAGE_TAG,
  type Literal,
  type NamedNode,
  type Resource,
} from './rdf.ts';
import {
  ADMS_WITHDRAWN,
  EU_DATA_THEMES,
  PUBLIC_ACCESS,
  SPANISH,
  euDataThemeIri,
  fileTypeIri,
  languageTag,
  mediaTypeIri,
  statedAreas,
  statedLanguages,
} from './vocabularies.ts';

const SCHEME_TITLE = 'Categorías de Archivo Abierto';
const DISTRIBUTION_DESCRIPTION =
  'Copia del archivo conservada por Archivo Abierto y servida por su identificador de contenido (CID): ' +
  'cualquiera puede comprobar que los bytes descargados son los archivados.';

/** The IRIs of everything the catalogue describes, on the archive's public origin. */
export function catalogIris(origin: string) {
  const at = (path: string): string => {
    const value = webIri(new URL(path, origin).href);
    if (!value) throw new Error(`El origen público del archivo no es una URL http(s): ${origin}`);
    return value;
  };
  return {
    catalog: at('/catalog'),
    archive: at('/catalog#archivo'),
    homepage: at('/'),
    scheme: at('/group/cat'),
    dataset: (id: number) => at(`/catalog/dataset/${id}`),
    catalogRecord: (id: number) => at(`/catalog/record/${id}`),
    distribution: (id: number) => at(`/catalog/dataset/${id}/distribution`),
    publisher: (departmentId: number) => at(collectionPath('dep', departmentId)),
    theme: (categoryId: number) => at(collectionPath('cat', categoryId)),
    recordPage: (record: { cid: string; id: number }) => at(recordPath(record)),
    file: (cid: string) => at(`/ipfs/${encodeURIComponent(cid)}`),
  };
}

/**
 * Where an IRI of `catalogIris` that names a thing rather than a document leads (`/catalog`,
 * `/catalog/dataset/{id}`, its distributions, `/catalog/record/{id}`): the document that describes
 * it, for a 303 See Other as linked data does. The catalogue is described by its document (Turtle
 * when the client asks for it before JSON-LD); a dataset, its distributions and its catalogue
 * record by the record's page. Null for a path that names nothing.
 */
export function catalogIriDocument(path: string, accept: string | null): string | null {
  const rest = path.replace(/^\/catalog\/?/, '');
  if (rest === '') return prefersTurtle(accept) ? '/catalog.ttl' : '/catalog.jsonld';
  const match = /^(?:dataset\/(\d{1,10})(?:\/distribution(?:\/v\d{1,6})?)?|record\/(\d{1,10}))\/?$/.exec(rest);
  const id = Number(match?.[1] ?? match?.[2]);
  return match && Number.isSafeInteger(id) && id > 0 && id <= 2 ** 31 - 1 ? recordIdPath(id) : null;
}

/** Whether an Accept header ranks Turtle above JSON-LD (ties go to JSON-LD, the catalogue's first form). */
function prefersTurtle(accept: string | null): boolean {
  return acceptWeight(accept, 'text/turtle') > acceptWeight(accept, 'application/ld+json');
}

export type CatalogIris = ReturnType<typeof catalogIris>;

/** The catalogue itself, without its datasets (the writers add them as they stream). */
export function catalogResource(summary: CatalogSummary, iris: CatalogIris): Resource {
  return resource(iris.catalog, [dcat.Catalog], {
    [dct.title]: text(t('site.name')),
    [dct.description]: text(t('site.description')),
    [dct.publisher]: iri(iris.archive),
    [foaf.homepage]: iri(iris.homepage),
    // The language of its descriptions (DCAT-AP's meaning on a catalogue). No area of its own: its
    // datasets state theirs, some foreign, and a harvester gives a dataset without one its catalogue's.
    [dct.language]: iri(SPANISH),
    [dct.issued]: summary.issued ? dateTime(summary.issued) : undefined,
    [dct.modified]: summary.modified ? dateTime(summary.modified) : undefined,
    [dcat.themeTaxonomy]: [iri(iris.scheme), iri(EU_DATA_THEMES)],
    [dct.rights]: resource(null, [dct.RightsStatement], { [rdfs.label]: text(t('footer.license')) }),
  });
}

/** The archive as the catalogue's publisher. */
export function archiveAgent(iris: CatalogIris): Resource {
  return resource(iris.archive, [foaf.Agent], {
    [foaf.name]: text(t('site.name')),
    [foaf.homepage]: iri(iris.homepage),
  });
}

/** The archive's categories as a SKOS concept scheme, the catalogue's own theme taxonomy. */
export function themeResources(themes: Array<{ id: number; title: string; description: string | null }>, iris: CatalogIris): Resource[] {
  return [
    resource(iris.scheme, [skos.ConceptScheme], { [dct.title]: text(SCHEME_TITLE) }),
    ...themes.map((theme) =>
      resource(iris.theme(theme.id), [skos.Concept], {
        [skos.prefLabel]: text(theme.title),
        [skos.definition]: theme.description ? text(theme.description) : undefined,
        [skos.inScheme]: iri(iris.scheme),
      }),
    ),
  ];
}

/** The departments that publish records, as agents: name, and website when known. */
export function publisherResources(publishers: Array<{ id: number; name: string; website: string | null }>, iris: CatalogIris): Resource[] {
  return publishers.map((publisher) => {
    const homepage = webIri(publisher.website);
    return resource(iris.publisher(publisher.id), [foaf.Agent], {
      [foaf.name]: text(publisher.name),
      [foaf.homepage]: homepage ? iri(homepage) : undefined,
    });
  });
}

/**
 * The update frequency its catalogue declared: the EU table's IRI when the table names it, the
 * IRI as declared when it is one of another vocabulary, else the words as the label of a
 * `dct:Frequency` (the property's range) of its own, in the record's language (`wordsOf`).
 */
function frequencyValue(declared: string | null, inWords: (value: string) => Literal): NamedNode | Resource | undefined {
  const words = declared?.trim();
  if (!words) return undefined;
  const known = frequencyIri(words) ?? webIri(words);
  return known ? iri(known) : resource(null, [dct.Frequency], { [rdfs.label]: inWords(words) });
}

/**
 * The archive's description of a record, as DCAT-AP's catalogue record: when it was listed
 * (`createdAt`) and last changed (`updatedAt`) in this catalogue, about the dataset it describes.
 */
function catalogRecordResource(record: CatalogRecord, iris: CatalogIris): Resource {
  // A dataset its catalogue withdrew stays described (the archive keeps it), said «Withdrawn», as
  // DCAT-AP says it: its record changed then, though the record's own row may not have.
  const withdrawn = record.withdrawnFromCatalogAt;
  const modified = withdrawn && withdrawn > record.updatedAt ? withdrawn : record.updatedAt;
  return resource(
    iris.catalogRecord(record.id),
    [dcat.CatalogRecord],
    { [dct.issued]: dateTime(record.createdAt), [dct.modified]: dateTime(modified), [adms.status]: withdrawn ? iri(ADMS_WITHDRAWN) : undefined },
    { [dcat.record]: iri(iris.catalog) },
  );
}

/** A file of a record as a distribution: its current file, or an earlier version of it. */
interface DistributedFile {
  cid: string;
  /** Its file's name (a name in no language), or the record's title in the record's (`distributionTitle`). */
  title: Literal;
  description: string;
  mimeType: string | null;
  type: CatalogRecord['type'];
  size: number | null;
  sha256: string | null;
  /** When the archive got these bytes (a capture, or the upload that brought them). */
  issued: Date | null;
  /** The dataset it is an earlier version of. */
  versionOf?: string;
  /** Where the archive captured these bytes from (the answering URL of their capture). */
  source?: string | undefined;
}

/** An archived file, served by the archive's gateway. */
function distributionResource(id: string, file: DistributedFile, iris: CatalogIris, license: NamedNode | Resource | undefined): Resource {
  const url = iri(iris.file(file.cid));
  const mediaType = mediaTypeIri(file.mimeType, file.type);
  const format = fileTypeIri(file.type);
  const sha256 = file.sha256?.toLowerCase();
  return resource(id, [dcat.Distribution], {
    [dct.identifier]: plain(`ipfs://${file.cid}`),
    [dct.title]: file.title,
    [dct.description]: text(file.description),
    [dct.issued]: file.issued ? dateTime(file.issued) : undefined,
    [dct.isVersionOf]: file.versionOf ? iri(file.versionOf) : undefined,
    [dct.source]: file.source ? iri(file.source) : undefined,
    [dct.license]: license,
    [dcat.accessURL]: url,
    [dcat.downloadURL]: url,
    [dcat.mediaType]: mediaType ? iri(mediaType) : undefined,
    [dct.format]: format ? iri(format) : undefined,
    [dcat.byteSize]: file.size !== null ? typed(String(file.size), xsd.decimal) : undefined,
    [spdx.checksum]:
      sha256 && /^[0-9a-f]{64}$/.test(sha256)
        ? resource(null, [spdx.Checksum], {
            [spdx.algorithm]: iri(spdx.checksumAlgorithm_sha256),
            [spdx.checksumValue]: typed(sha256, xsd.hexBinary),
          })
        : undefined,
  });
}

/**
 * A record's distributions: its current file, then every earlier version of it (issue #19), each
 * its own distribution, a version of the dataset. Each is issued when the archive got its bytes:
 * the current file too, so a harvester can tell it from the earlier ones by date as well.
 */
function distributionResources(record: CatalogRecord & { cid: string }, iris: CatalogIris, words: (value: string) => Literal): Resource[] {
  const license = licenseValue(record, words);
  /** A file's name, which is in no language; or, for a file without one, the record's title in its words. */
  const distributionTitle = (fileName: string | null, suffix = '') => (fileName ? plain(`${fileName}${suffix}`) : words(`${record.title}${suffix}`));
  const current = distributionResource(
    iris.distribution(record.id),
    {
      cid: record.cid,
      title: distributionTitle(record.fileName),
      description: DISTRIBUTION_DESCRIPTION,
      mimeType: record.mimeType,
      type: record.type,
      size: record.fileSize,
      sha256: record.fileSha256,
      issued: record.fileArchivedAt,
      source: webIri(record.fileCapturedFrom),
    },
    iris,
    license,
  );
  const older = record.olderVersions.map((version) =>
    distributionResource(
      `${iris.distribution(record.id)}/v${version.number}`,
      {
        cid: version.cid,
        title: distributionTitle(version.fileName, ` (v${version.number})`),
        description: `Versión anterior (v${version.number}) del archivo, tal como la publicaba su origen cuando el archivo la capturó; ${DISTRIBUTION_DESCRIPTION.charAt(0).toLowerCase()}${DISTRIBUTION_DESCRIPTION.slice(1)}`,
        mimeType: version.mimeType,
        type: version.type,
        size: version.size,
        sha256: version.sha256,
        issued: version.capturedAt,
        versionOf: iris.dataset(record.id),
        source: webIri(version.capture?.finalUrl),
      },
      iris,
      license,
    ),
  );
  return [current, ...older];
}

type DeclaredFacts = Pick<CatalogueFacts, 'updateFrequency' | 'contactName' | 'contactEmail' | 'temporalStart' | 'temporalEnd' | 'temporalText'>;

/**
 * The publisher's contact point for a record, when its catalogue named one (`publishableContact`):
 * its name as the catalogue wrote it, in the record's language (`wordsOf`).
 */
function contactPointResource({ contactName, contactEmail }: DeclaredFacts, inWords: (value: string) => Literal): Resource | undefined {
  const contact = publishableContact(contactName, contactEmail);
  if (!contact) return undefined;
  const email = mailtoLink(contact.email);
  return resource(null, [vcard.Kind], {
    [vcard.fn]: contact.name ? inWords(contact.name) : undefined,
    [vcard.hasEmail]: email ? iri(email) : undefined,
  });
}

/** The period a record's data covers, when its catalogue stated one; its words in the record's language (`wordsOf`). */
function temporalResource({ temporalStart, temporalEnd, temporalText }: DeclaredFacts, inWords: (value: string) => Literal): Resource | undefined {
  const words = temporalText?.trim();
  if (!temporalStart && !temporalEnd && !words) return undefined;
  return resource(null, [dct.PeriodOfTime], {
    [dcat.startDate]: temporalStart ? date(temporalStart) : undefined,
    [dcat.endDate]: temporalEnd ? date(temporalEnd) : undefined,
    [rdfs.label]: words ? inWords(words) : undefined,
  });
}

/**
 * The licence its catalogue declared: its document's IRI when it gave a web address, else a
 * licence document named by its title; none when it declared neither. On the dataset and on each
 * distribution, where DCAT-AP looks for it. An IRI is left unlabelled: datasets share it, and
 * their catalogues' titles for it differ («CC BY 4.0», «Creative Commons Atribución 4.0»). A
 * title is in the record's language (`wordsOf`): an English catalogue's licence is not Spanish.
 */
function licenseValue(
  { licenseTitle, licenseUrl }: Pick<CatalogueFacts, 'licenseTitle' | 'licenseUrl'>,
  inWords: (value: string) => Literal,
): NamedNode | Resource | undefined {
  const url = webIri(licenseUrl);
  if (url) return iri(url);
  const title = licenseTitle?.trim();
  return title ? resource(null, [dct.LicenseDocument], { [rdfs.label]: inWords(title) }) : undefined;
}

/** The languages of a record's data (`statedLanguages`), as IRIs. */
function languagesOf(record: CatalogRecord): NamedNode[] {
  return statedLanguages(record).flatMap((language) => (webIri(language) ? [iri(language)] : []));
}

/** The areas a record covers (`statedAreas`): an IRI, or a place's name as a `dct:Location`. */
function spatialOf(record: CatalogRecord): Array<NamedNode | Resource> {
  return statedAreas(record).map((place) => {
    const named = webIri(place);
    return named ? iri(named) : resource(null, [dct.Location], { [skos.prefLabel]: plain(place) });
  });
}

/**
 * The record's own words (title, description, its catalogue's keywords, and what else its catalogue
 * wrote of it: a licence's title, a frequency, a contact's name, a period in words) as literals in
 * their language: an upload's are the archive's, Spanish; a harvested record's, the one language its
 * catalogue declared, and untagged when it declared none or several (a Chilean or an English
 * catalogue's titles are not the archive's to call Spanish).
 */
function wordsOf(record: CatalogRecord): (value: string) => Literal {
  const tag = !record.harvested ? LANGUAGE_TAG : record.languages.length === 1 ? languageTag(record.languages[0]!) : null;
  return (value) => textIn(value, tag);
}

/** Its catalogue's keywords in their words, then its category's title in the archive's, each once (ignoring case). */
function keywordsOf(record: CatalogRecord, words: (value: string) => Literal): Literal[] {
  const seen = new Set<string>();
  const once = (keyword: string) => keyword !== '' && !seen.has(keyword.toLocaleLowerCase('es')) && seen.add(keyword.toLocaleLowerCase('es'));
  const own = record.keywords.map((keyword) => keyword.trim()).filter(once).map(words);
  const category = record.category && once(record.category.title.trim()) ? [text(record.category.title.trim())] : [];
  return [...own, ...category];
}

/** One published record as a dataset, with its distribution when the archive holds the file. */
export function datasetResource(record: CatalogRecord, iris: CatalogIris): Resource {
  const cid = record.cid;
  const origin = webIri(record.sourceUrl);
  // An archived record lands on the archive's page; the page it came from stays named, as its source.
  const landingPage = cid ? iris.recordPage({ cid, id: record.id }) : origin;
  const euTheme = record.category ? euDataThemeIri(record.category.title) : undefined;
  // The catalogue record about the dataset is written with it: it states `foaf:primaryTopic` of it.
  const about = { [foaf.primaryTopic]: catalogRecordResource(record, iris) };
  const words = wordsOf(record);
  return resource(iris.dataset(record.id), [dcat.Dataset], {
    [dct.identifier]: plain(String(record.id)),
    [adms.identifier]: cid ? resource(null, [adms.Identifier], { [skos.notation]: plain(cid) }) : undefined,
    [dct.title]: words(record.title),
    // DCAT-AP requires a description; the title is the best the record has when it lacks one.
    [dct.description]: words(record.description?.trim() ? record.description : record.title),
    [dct.issued]: record.issued ? originDate(record.issued) : undefined,
    [dct.modified]: record.modified ? originDate(record.modified) : undefined,
    [dcat.landingPage]: landingPage ? iri(landingPage) : undefined,
    [dct.source]: cid && origin ? iri(origin) : undefined,
    [dct.publisher]: record.department ? iri(iris.publisher(record.department.id)) : undefined,
    [dcat.theme]: record.category ? [iri(iris.theme(record.category.id)), euTheme ? iri(euTheme) : undefined] : undefined,
    [dcat.keyword]: keywordsOf(record, words),
    [dct.license]: licenseValue(record, words),
    [dct.language]: languagesOf(record),
    [dct.spatial]: spatialOf(record),
    [dct.accessRights]: iri(PUBLIC_ACCESS),
    [dct.accrualPeriodicity]: frequencyValue(record.updateFrequency, words),
    [dcat.contactPoint]: contactPointResource(record, words),
    [dct.temporal]: temporalResource(record, words),
    [dcat.distribution]: cid ? distributionResources({ ...record, cid }, iris, words) : undefined,
  }, about);
}

/** The whole catalogue, ready to be written: what it says of itself, then its datasets page by page. */
export interface CatalogGraph {
  /** The catalogue, without its `dcat:dataset` links. */
  catalog: Resource;
  /** Resources the datasets refer to: the archive, the theme scheme and its concepts, the publishers. */
  described: Resource[];
  /** The datasets, a page at a time (each resource an IRI node; distributions nested in them). */
  datasets: AsyncIterable<Resource[]>;
}

/**
 * Reads the catalogue of `db` on `origin`. Only the summary, the categories and the publishers are
 * read now; the records are read as `datasets` is iterated, one page per step, so a writer can
 * stream an archive of any size.
 */
export async function readCatalog(db: Db, origin: string, { pageSize }: { pageSize?: number } = {}): Promise<CatalogGraph> {
  const iris = catalogIris(origin);
  // The last record first: every publisher and theme a record up to it can name exists by now.
  const upTo = await latestRecordId(db);
  const summary = await catalogSummary(db);
  const themes = await catalogThemes(db);
  const publishers = await catalogPublishers(db);
  async function* datasets(): AsyncGenerator<Resource[]> {
    for await (const page of catalogRecordPages(db, { pageSize, upTo })) yield page.map((record) => datasetResource(record, iris));
  }
  return {
    catalog: catalogResource(summary, iris),
    described: [archiveAgent(iris), ...themeResources(themes, iris), ...publisherResources(publishers, iris)],
    datasets: datasets(),
  };
}
