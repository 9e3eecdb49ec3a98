/**
 * A DCAT-AP page's datasets, read from its RDF graph (our own `/catalog.jsonld`, ckanext-dcat's
 * `catalog.ttl`, uData's `catalog.jsonld`), with its Hydra paging: `hydra:next` on a
 * `hydra:PartialCollectionView` (Hydra, uData) or `hydra:nextPage` on a `hydra:PagedCollection`
 * (ckanext-dcat). Values come from the graph, never from the text: the RDF is parsed by real libraries.
 * A graph has no order: the datasets of a page come in no particular one (jsonld.js sorts by IRI).
 *
 * This runs in the page's worker thread (`dcat-worker.ts`), loaded by Node itself: every import is
 * a `.ts` path and only erasable TypeScript is allowed here and in what it imports.
 */
import type { Store, Term } from 'n3';
import { dcat, dct, foaf, NS, rdf, spdx } from '../../dcat/rdf.ts';
import { kindHint } from './body.ts';
import { CatalogReadError } from './errors.ts';
import type { CatalogPageLimits } from './limits.ts';
import type { ParsedPage } from './paging.ts';
import { parseRdfPage } from './rdf-document.ts';
import { firstValue, HYDRA_NS, inArchiveLanguage, labelOf, literalsByLanguage, objectsOf, preferredText, RDF_VALUE, termKey } from './rdf-terms.ts';
import type { CatalogContact, CatalogDataset, CatalogDistribution, CatalogLicense, CatalogPublisher, CatalogTemporal, CatalogTheme, FetchedPage } from './types.ts';
import { frequencyIri } from './frequency.ts';
import { cleanByteSize, cleanChecksum, cleanContact, cleanDate, cleanEmail, cleanFileSize, cleanLanguage, cleanSpatial, cleanTemporal, cleanText, cleanUrl, distinct, vocabularyCode, type VocabularyKind } from './values.ts';
import { formatCount } from '../../../text.ts';

const DCT_LICENSE = `${NS.dct}license`;
const DCT_ACCRUAL_PERIODICITY = `${NS.dct}accrualPeriodicity`;
const DCT_TEMPORAL = `${NS.dct}temporal`;
const DCT_LANGUAGE = `${NS.dct}language`;
const DCT_SPATIAL = `${NS.dct}spatial`;
/** INSPIRE's name of a place (`locn:geographicName`), as DCAT-AP names a `dct:Location`. */
const LOCN_GEOGRAPHIC_NAME = 'http://www.w3.org/ns/locn#geographicName';
const DCAT_CONTACT_POINT = `${NS.dcat}contactPoint`;
const VCARD_NS = 'http://www.w3.org/2006/vcard/ns#';
const TIME_NS = 'http://www.w3.org/2006/time#';
/**
 * Where a period of time states its ends: DCAT 2 (`dcat:startDate`), DCAT-AP 1.x (`schema:startDate`,
 * with either scheme) and OWL-Time (`time:hasBeginning` an instant with its `time:inXSDDate…`).
 */
const START_DATE = [`${NS.dcat}startDate`, 'http://schema.org/startDate', 'https://schema.org/startDate'];
const END_DATE = [`${NS.dcat}endDate`, 'http://schema.org/endDate', 'https://schema.org/endDate'];
const TIME_INSTANT_DATES = [`${TIME_NS}inXSDDate`, `${TIME_NS}inXSDDateTime`, `${TIME_NS}inXSDDateTimeStamp`];
const HYDRA_NEXT = [`${HYDRA_NS}next`, `${HYDRA_NS}nextPage`];
const HYDRA_TOTAL_ITEMS = `${HYDRA_NS}totalItems`;
/** OWL-Time's duration components, in the order and with the letters of an ISO 8601 duration, and which are of time (after `T`). */
const DURATION_PARTS: ReadonlyArray<{ part: string; letter: string; time: boolean }> = [
  { part: 'years', letter: 'Y', time: false },
  { part: 'months', letter: 'M', time: false },
  { part: 'days', letter: 'D', time: false },
  { part: 'hours', letter: 'H', time: true },
  { part: 'minutes', letter: 'M', time: true },
  { part: 'seconds', letter: 'S', time: true },
];
/** The most of one component a frequency can sensibly state (a century in seconds is 3.2e9). */
const MAX_DURATION_AMOUNT = 1e10;
/** A media type (`type/subtype`), as a format node's `rdf:value` may state one. */
const MEDIA_TYPE = /^[a-z]+\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i;

/**
 * The datasets of one DCAT page and its next page, within `limits` (its triples and datasets; the
 * worker that runs this is held to the time and memory limits).
 */
export async function parseDcatPage(page: FetchedPage, url: string, limits: CatalogPageLimits): Promise<ParsedPage> {
  return parseDcatGraph(await parseRdfPage(page, url, limits.maxTriples), url, page.body, limits.maxDatasets);
}

function parseDcatGraph(graph: Store, url: string, body: string, maxDatasets: number): ParsedPage {
  const listed = datasetNodes(graph);
  const subjects = listed.filter((node) => describedHere(graph, node));
  if (subjects.length > maxDatasets) {
    throw new CatalogReadError(
      'too-costly',
      url,
      `La página ${url} del catálogo describe ${formatCount(subjects.length)} conjuntos de datos, más de los ${formatCount(maxDatasets)} que el archivo lee de una página: el catálogo debe paginarse (Hydra).`,
    );
  }
  if (listed.length === 0 && graph.getSubjects(rdf.type, dcat.Catalog, null).length === 0) {
    let hint = '';
    try {
      hint = kindHint(JSON.parse(body), 'dcat');
    } catch {
      // Not JSON: no other kind to suggest.
    }
    throw new CatalogReadError('wrong-kind', url, `${url} no describe ningún dcat:Catalog ni dcat:Dataset: no es un catálogo DCAT.${hint}`);
  }
  const datasets: CatalogDataset[] = [];
  const skipped: string[] = [];
  // Datasets named here and described nowhere on the page (a catalogue that lists the addresses of
  // documents, one per dataset): the archive does not open each, so it says it read none of them.
  // A failure of the run, which then withdraws nothing on this page's word.
  if (subjects.length === 0 && listed.length > 0) {
    skipped.push(`La página ${url} nombra ${formatCount(listed.length)} conjunto(s) de datos sin describir ninguno (el archivo no abre la dirección de cada uno): no se leen.`);
  }
  for (const node of subjects) {
    const dataset = dcatDataset(graph, node, { publisher: cataloguePublisher(graph, node), spatial: () => catalogueSpatial(graph, node) });
    if (dataset) datasets.push(dataset);
    else skipped.push(`Un dcat:Dataset de ${url} no tiene dct:identifier ni IRI: no se puede identificar.`);
  }
  return { datasets, total: hydraTotal(graph), skipped, next: hydraNext(graph, url) };
}

/** Nodes typed dcat:Dataset, and nodes a catalogue lists as its datasets without typing them. */
function datasetNodes(graph: Store): Term[] {
  const nodes = new Map<string, Term>();
  for (const node of [...graph.getSubjects(rdf.type, dcat.Dataset, null), ...graph.getObjects(null, dcat.dataset, null)]) {
    if (node.termType !== 'Literal') nodes.set(termKey(node), node);
  }
  return [...nodes.values()];
}

/**
 * Whether the page says anything of a dataset but its type: a paged catalogue may list on every
 * page datasets it describes on another (uData does), and such a bare IRI is no dataset of this
 * page, only a name.
 */
function describedHere(graph: Store, node: Term): boolean {
  return graph.countQuads(node, null, null, null) > graph.countQuads(node, rdf.type, null, null);
}

/**
 * The catalogue that lists a dataset, or with a single catalogue on the page, that one; never
 * another catalogue's: what `read` finds of the first that has it, null when none does.
 */
function ofItsCatalogue<T>(graph: Store, dataset: Term, read: (catalogue: Term) => T | null): T | null {
  for (const catalogue of graph.getSubjects(dcat.dataset, dataset, null)) {
    const found = read(catalogue);
    if (found !== null) return found;
  }
  const catalogues = graph.getSubjects(rdf.type, dcat.Catalog, null);
  return catalogues.length === 1 ? read(catalogues[0]!) : null;
}

/**
 * The publisher of the catalogue that lists a dataset (DCAT-AP's catalogue publisher is mandatory
 * and a dataset's only recommended: a dataset that names none is its catalogue's).
 */
function cataloguePublisher(graph: Store, dataset: Term): CatalogPublisher | null {
  return ofItsCatalogue(graph, dataset, (catalogue) => publisherOf(graph, catalogue));
}

/**
 * The area its catalogue covers, for a dataset that states none (datos.gob.es states Spain once, on
 * its catalogue). Not its catalogue's language: on a catalogue, DCAT-AP's `dct:language` is the
 * language of the descriptions, not of the data.
 */
function catalogueSpatial(graph: Store, dataset: Term): string[] {
  return ofItsCatalogue(graph, dataset, (catalogue) => {
    const spatial = spatialOf(graph, catalogue);
    return spatial.length > 0 ? spatial : null;
  }) ?? [];
}

/** The languages `dct:language` states of `node`: IRIs or codes, as the EU table's IRIs. */
function languagesOf(graph: Store, node: Term): string[] {
  return distinct(objectsOf(graph, node, DCT_LANGUAGE).map((term) => (term.termType === 'BlankNode' ? null : cleanLanguage(term.value))));
}

/** The areas `dct:spatial` states of `node`: an IRI, a name, or a `dct:Location` node's name. */
function spatialOf(graph: Store, node: Term): string[] {
  return distinct(
    objectsOf(graph, node, DCT_SPATIAL).map((term) => {
      if (term.termType !== 'BlankNode') return cleanSpatial(term.value);
      return cleanSpatial(preferredText(graph, term, LOCN_GEOGRAPHIC_NAME) ?? labelOf(graph, term));
    }),
  );
}

function hydraNext(graph: Store, url: string): string | null {
  for (const predicate of HYDRA_NEXT) {
    for (const quad of graph.getQuads(null, predicate, null, null)) {
      const next = cleanUrl(quad.object.value, url);
      if (next) return next;
    }
  }
  return null;
}

function hydraTotal(graph: Store): number | null {
  const quad = graph.getQuads(null, HYDRA_TOTAL_ITEMS, null, null)[0];
  return quad ? cleanByteSize(quad.object.value) : null;
}

/** What a dataset takes from its catalogue when it states none of its own. */
interface FromCatalogue {
  publisher: CatalogPublisher | null;
  spatial: () => string[];
}

function dcatDataset(graph: Store, node: Term, fromCatalogue: FromCatalogue): CatalogDataset | null {
  const identifier = preferredText(graph, node, dct.identifier) ?? (node.termType === 'NamedNode' ? node.value : null);
  if (!identifier) return null;
  const distributionNodes = objectsOf(graph, node, dcat.distribution).filter((term) => term.termType !== 'Literal');
  const ownSpatial = spatialOf(graph, node);
  return {
    identifier,
    landingPage: cleanUrl(firstValue(graph, node, dcat.landingPage)),
    title: preferredText(graph, node, dct.title) ?? identifier,
    description: preferredText(graph, node, dct.description),
    issued: cleanDate(firstValue(graph, node, dct.issued)),
    modified: cleanDate(firstValue(graph, node, dct.modified)),
    // ckanext-dcat states the licence on each distribution rather than on the dataset.
    license: [node, ...distributionNodes].map((subject) => licenseOf(graph, subject)).find((license) => license !== null) ?? null,
    keywords: keywordsOf(graph, node),
    updateFrequency: frequencyOf(graph, node),
    contact: contactOf(graph, node),
    temporal: temporalOf(graph, node),
    languages: languagesOf(graph, node),
    spatial: ownSpatial.length > 0 ? ownSpatial : fromCatalogue.spatial(),
    publisher: publisherOf(graph, node) ?? fromCatalogue.publisher,
    themes: objectsOf(graph, node, dcat.theme).flatMap((theme): CatalogTheme[] => {
      if (theme.termType === 'Literal') return cleanText(theme.value) ? [{ identifier: theme.value.trim(), label: theme.value.trim() }] : [];
      return theme.termType === 'NamedNode' ? [{ identifier: theme.value, label: labelOf(graph, theme) }] : [];
    }),
    distributions: distributionNodes.map((distribution) => dcatDistribution(graph, distribution)),
  };
}

/** Keywords in Spanish or without a language; in other languages only when there are no such. */
function keywordsOf(graph: Store, node: Term): string[] {
  const literals = literalsByLanguage(objectsOf(graph, node, dcat.keyword));
  const suited = literals.filter(inArchiveLanguage);
  return distinct((suited.length > 0 ? suited : literals).map((term) => cleanText(term.value)));
}

/**
 * `dct:accrualPeriodicity` as declared: a frequency IRI (the EU vocabulary's, Dublin Core's
 * `cld:freq`), a literal, or a `dct:Frequency` node with its `rdf:value` (DCAT-AP 1.x) or label
 * (the archive's own catalogue, for a frequency outside the EU table). datos.gob.es names its
 * frequency nodes with IRIs of their own, their `rdf:value` an OWL-Time duration (`time:years 1`):
 * read as the repeating period it is (`R/P1Y`).
 */
function frequencyOf(graph: Store, dataset: Term): string | null {
  const term = objectsOf(graph, dataset, DCT_ACCRUAL_PERIODICITY)[0];
  if (!term) return null;
  if (term.termType === 'Literal') return cleanText(term.value);
  // A vocabulary's IRI is the frequency itself, whatever the page says of it; so is an IRI the page
  // does not describe (another vocabulary's). An IRI of the page's own is only a name for a node.
  const named = (node: Term) => node.termType === 'NamedNode' && (frequencyIri(node.value) !== null || !describedHere(graph, node));
  if (named(term)) return term.value;
  const value = objectsOf(graph, term, RDF_VALUE)[0];
  if (value?.termType === 'Literal') return cleanText(value.value) ?? labelOf(graph, term);
  return (value && (durationOf(graph, value) ?? (named(value) ? value.value : null))) ?? labelOf(graph, term);
}

/**
 * An OWL-Time `time:DurationDescription` (`time:years 1.0`) as a repeating period (`R/P1Y`); null
 * without one. Weeks stand alone in ISO 8601 (`P2W`): beside other components they count as days.
 */
function durationOf(graph: Store, node: Term): string | null {
  const amountOf = (part: string) => {
    const amount = Number(firstValue(graph, node, `${TIME_NS}${part}`) ?? NaN);
    return Number.isFinite(amount) && amount > 0 && amount < MAX_DURATION_AMOUNT ? amount : 0;
  };
  const weeks = amountOf('weeks');
  const amounts = DURATION_PARTS.map((component) => ({ ...component, amount: amountOf(component.part) }));
  if (weeks > 0 && amounts.every(({ amount }) => amount === 0)) return `R/P${weeks}W`;
  amounts.find(({ part }) => part === 'days')!.amount += weeks * 7;
  const written = (time: boolean) => amounts.filter((component) => component.time === time && component.amount > 0).map(({ amount, letter }) => `${amount}${letter}`).join('');
  const date = written(false);
  const time = written(true);
  return date || time ? `R/P${date}${time ? `T${time}` : ''}` : null;
}

/** `dcat:contactPoint`: a vCard's name (`vcard:fn`, else its organisation's) and `vcard:hasEmail`. */
function contactOf(graph: Store, dataset: Term): CatalogContact | null {
  const node = objectsOf(graph, dataset, DCAT_CONTACT_POINT)[0];
  if (!node) return null;
  if (node.termType === 'Literal') return cleanEmail(node.value) ? cleanContact(null, node.value) : cleanContact(node.value, null);
  const name = preferredText(graph, node, `${VCARD_NS}fn`) ?? preferredText(graph, node, `${VCARD_NS}organization-name`) ?? labelOf(graph, node);
  return cleanContact(name, firstValue(graph, node, `${VCARD_NS}hasEmail`) ?? firstValue(graph, node, `${VCARD_NS}email`));
}

/** `dct:temporal`: a period of time's start and end dates, or its label, or a literal. */
function temporalOf(graph: Store, dataset: Term): CatalogTemporal | null {
  const node = objectsOf(graph, dataset, DCT_TEMPORAL)[0];
  if (!node) return null;
  if (node.termType === 'Literal') return cleanTemporal(null, null, node.value);
  const dateOf = (predicates: string[], instant: string) =>
    predicates.map((predicate) => firstValue(graph, node, predicate)).find((value) => value !== null) ??
    objectsOf(graph, node, instant)
      .flatMap((moment) => TIME_INSTANT_DATES.map((predicate) => firstValue(graph, moment, predicate)))
      .find((value) => value !== null);
  return cleanTemporal(dateOf(START_DATE, `${TIME_NS}hasBeginning`), dateOf(END_DATE, `${TIME_NS}hasEnd`), labelOf(graph, node));
}

function publisherOf(graph: Store, dataset: Term): CatalogPublisher | null {
  const node = objectsOf(graph, dataset, dct.publisher)[0];
  if (!node) return null;
  if (node.termType === 'Literal') {
    const name = cleanText(node.value);
    return name ? { identifier: null, name, homepage: null, acronym: null } : null;
  }
  const name = preferredText(graph, node, foaf.name) ?? labelOf(graph, node);
  if (!name) return null;
  return {
    identifier: node.termType === 'NamedNode' ? node.value : preferredText(graph, node, dct.identifier),
    name,
    homepage: cleanUrl(firstValue(graph, node, foaf.homepage)),
    acronym: null,
  };
}

function licenseOf(graph: Store, subject: Term): CatalogLicense | null {
  const node = objectsOf(graph, subject, DCT_LICENSE)[0];
  if (!node) return null;
  if (node.termType === 'Literal') {
    const url = cleanUrl(node.value);
    return url ? { title: null, url } : { title: cleanText(node.value), url: null };
  }
  const title = preferredText(graph, node, dct.title) ?? labelOf(graph, node);
  const url = node.termType === 'NamedNode' ? cleanUrl(node.value) : null;
  return title || url ? { title, url } : null;
}

/** A format or media type stated as a literal, as a vocabulary IRI, or as a node with a label. */
function codeOf(graph: Store, subject: Term, predicate: string, kind: VocabularyKind): string | null {
  const term = objectsOf(graph, subject, predicate)[0];
  if (!term) return null;
  if (term.termType === 'Literal') return vocabularyCode(term.value, kind);
  const label = labelOf(graph, term);
  if (term.termType !== 'NamedNode') return label;
  const code = vocabularyCode(term.value, kind);
  return code !== term.value ? code : (label ?? code);
}

function dcatDistribution(graph: Store, node: Term): CatalogDistribution {
  const download = cleanUrl(firstValue(graph, node, dcat.downloadURL));
  const access = cleanUrl(firstValue(graph, node, dcat.accessURL));
  const url = download ?? access;
  const checksumNode = objectsOf(graph, node, spdx.checksum)[0];
  // DCAT-AP 1.x states a format as a `dct:IMT` node: its label the format, its `rdf:value` the media type.
  const formatNode = objectsOf(graph, node, dct.format).find((term) => term.termType !== 'Literal');
  const formatMediaType = formatNode ? cleanText(firstValue(graph, formatNode, RDF_VALUE)) : null;
  return {
    identifier: preferredText(graph, node, dct.identifier) ?? (node.termType === 'NamedNode' ? node.value : null),
    url,
    accessUrl: access !== url ? access : null,
    title: preferredText(graph, node, dct.title),
    format: codeOf(graph, node, dct.format, 'format'),
    mediaType: codeOf(graph, node, dcat.mediaType, 'mediaType') ?? (formatMediaType && MEDIA_TYPE.test(formatMediaType) ? formatMediaType : null),
    byteSize: cleanFileSize(firstValue(graph, node, dcat.byteSize)),
    checksum: checksumNode
      ? cleanChecksum(firstValue(graph, checksumNode, spdx.checksumValue), firstValue(graph, checksumNode, spdx.algorithm))
      : null,
  };
}
