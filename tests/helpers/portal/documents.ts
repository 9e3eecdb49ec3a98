/**
 * The local portal's catalogue in every kind the archive harvests, built from the same CKAN
 * packages: the `package_search` answer, DCAT-AP pages in JSON-LD and in Turtle (written with the
 * archive's own DCAT writer pieces, `src/lib/server/dcat/`, read-only) and in RDF/XML (the Turtle
 * page's triples, written out here: the archive writes no RDF/XML), and a data.json (DCAT-US
 * 1.1 as Andino publishes it, with a `themeTaxonomy`).
 *
 * The DCAT pages follow the two Hydra paging styles harvesters meet: JSON-LD a
 * `hydra:PartialCollectionView` with `hydra:next` (Hydra, uData), Turtle a `hydra:PagedCollection`
 * with `hydra:nextPage` as a literal (ckanext-dcat). Formats are literals as ckanext-dcat writes
 * them; media types IANA IRIs; checksums `spdx:checksum` from each resource's `sha256:` hash.
 */
import { Parser, type Quad_Object, type Quad_Subject } from 'n3';
import { jsonLdNode, CATALOG_CONTEXT } from '../../../src/lib/server/dcat/jsonld.ts';
import {
  dateTime,
  dcat,
  dct,
  foaf,
  iri,
  NS,
  plain,
  resource,
  skos,
  spdx,
  text,
  typed,
  webIri,
  xsd,
  type Resource,
} from '../../../src/lib/server/dcat/rdf.ts';
import { turtleBlock, turtleString } from '../../../src/lib/server/dcat/turtle.ts';
import { escapeXml } from '../../../src/lib/server/seo/sitemap.ts';
import type { CkanPackage, CkanResource } from './packages.ts';

const HYDRA = 'http://www.w3.org/ns/hydra/core#';
const DCT_LICENSE = `${NS.dct}license`;
const VCARD = 'http://www.w3.org/2006/vcard/ns#';
const EU_FREQUENCY = 'http://publications.europa.eu/resource/authority/frequency/';

/**
 * What the portal's packages say of update frequency, contact and coverage, for every kind: the
 * frequency as the sample states it (a `periodicidad` field, a `Periodicidad` extra, or
 * datos.gob.do's `Periocidad` typo),
 * written by DCAT as the EU vocabulary's IRI and by data.json as an ISO 8601 period when it is one
 * of these words (as ckanext-dcat and Andino would), as typed otherwise; the contact as the
 * maintainer, else the author; the coverage from `temporal_start` / `temporal_end` extras.
 */
const FREQUENCY_CODES: Record<string, { eu: string; iso: string }> = {
  mensual: { eu: 'MONTHLY', iso: 'R/P1M' },
  trimestral: { eu: 'QUARTERLY', iso: 'R/P3M' },
  anual: { eu: 'ANNUAL', iso: 'R/P1Y' },
};

/** A package's value for one of `keys`, as a field (ckanext-scheming's `periodicidad`) or an extra. */
function extraOf(pkg: CkanPackage, ...keys: string[]): string | undefined {
  const field = keys.map((key) => pkg[key]).find((value) => typeof value === 'string' && value.trim());
  if (typeof field === 'string') return field.trim();
  const extras = Array.isArray(pkg.extras) ? (pkg.extras as Array<{ key: string; value: string }>) : [];
  return extras.find((extra) => keys.includes(extra.key.toLowerCase()) && extra.value.trim())?.value.trim();
}

function packageFacts(pkg: CkanPackage) {
  const frequency = extraOf(pkg, 'periodicidad', 'periocidad');
  const maintainerEmail = typeof pkg.maintainer_email === 'string' ? pkg.maintainer_email.trim() : '';
  const [name, email] = maintainerEmail ? [pkg.maintainer, maintainerEmail] : [pkg.author, pkg.author_email];
  return {
    frequency,
    frequencyCodes: frequency ? FREQUENCY_CODES[frequency.toLowerCase()] : undefined,
    contact: { name: typeof name === 'string' && name.trim() ? name.trim() : undefined, email: typeof email === 'string' && email.trim() ? email.trim() : undefined },
    temporal: { start: extraOf(pkg, 'temporal_start'), end: extraOf(pkg, 'temporal_end') },
  };
}

/** One `package_search` answer, as CKAN 2.x gives it. */
export function ckanAnswer(packages: CkanPackage[], rows: number, start: number): unknown {
  return {
    help: 'http://127.0.0.1/api/3/action/help_show?name=package_search',
    success: true,
    result: { count: packages.length, facets: {}, results: packages.slice(start, start + rows), sort: 'score desc, metadata_modified desc', search_facets: {} },
  };
}

/**
 * The package's origin page when it is a web URL (one sample package says "www.sancristobal.gob.do",
 * without a scheme), else its page on the portal: what the CKAN reader reads from the same package.
 */
const landingPageOf = (origin: string, pkg: CkanPackage) => webIri(pkg.url) ?? `${origin}/dataset/${pkg.name}`;

/** CKAN writes its times in UTC without a zone. */
const ckanDate = (value: string) => dateTime(new Date(`${value}Z`));

function distributionResource(origin: string, pkg: CkanPackage, res: CkanResource): Resource {
  const url = webIri(res.url)!;
  const sha256 = /^sha256:([0-9a-f]{64})$/.exec(res.hash)?.[1];
  return resource(`${origin}/dataset/${pkg.name}/resource/${res.id}`, [dcat.Distribution], {
    [dct.identifier]: plain(res.id),
    [dct.title]: res.name ? text(res.name) : undefined,
    [dcat.accessURL]: iri(url),
    [dcat.downloadURL]: iri(url),
    [dct.format]: res.format.trim() ? plain(res.format) : undefined,
    [dcat.mediaType]: res.mimetype ? iri(`http://www.iana.org/assignments/media-types/${res.mimetype}`) : undefined,
    [dcat.byteSize]: res.size !== null ? typed(String(res.size), xsd.decimal) : undefined,
    [spdx.checksum]: sha256
      ? resource(null, [spdx.Checksum], { [spdx.algorithm]: iri(spdx.checksumAlgorithm_sha256), [spdx.checksumValue]: typed(sha256, xsd.hexBinary) })
      : undefined,
    [DCT_LICENSE]: pkg.license_url ? iri(pkg.license_url) : undefined,
  });
}

/** A package as a `dcat:Dataset`, its publisher and themes as resources of their own. */
function datasetResources(origin: string, pkg: CkanPackage): Resource[] {
  const org = pkg.organization;
  const publisher = org ? resource(`${origin}/organization/${org.name}`, [foaf.Agent], { [foaf.name]: text(org.title) }) : null;
  const themes = pkg.groups.map((group) => resource(`${origin}/group/${group.name}`, [skos.Concept], { [skos.prefLabel]: text(group.title) }));
  const landingPage = landingPageOf(origin, pkg);
  const facts = packageFacts(pkg);
  const { start, end } = facts.temporal;
  const dataset = resource(`${origin}/dataset/${pkg.name}`, [dcat.Dataset], {
    [dct.identifier]: plain(pkg.id),
    [dct.title]: text(pkg.title),
    [dct.description]: pkg.notes ? text(pkg.notes) : undefined,
    [dct.issued]: ckanDate(pkg.metadata_created),
    [dct.modified]: ckanDate(pkg.metadata_modified),
    [dcat.landingPage]: iri(landingPage),
    [dct.publisher]: publisher ? iri(publisher.id!) : undefined,
    [dcat.theme]: themes.map((theme) => iri(theme.id!)),
    [dcat.keyword]: pkg.tags.map((tag) => text(tag.name)),
    [`${NS.dct}accrualPeriodicity`]: facts.frequencyCodes ? iri(`${EU_FREQUENCY}${facts.frequencyCodes.eu}`) : facts.frequency ? text(facts.frequency) : undefined,
    [`${NS.dcat}contactPoint`]:
      facts.contact.name || facts.contact.email
        ? resource(null, [`${VCARD}Kind`], {
            [`${VCARD}fn`]: facts.contact.name ? text(facts.contact.name) : undefined,
            [`${VCARD}hasEmail`]: facts.contact.email ? iri(`mailto:${facts.contact.email}`) : undefined,
          })
        : undefined,
    [`${NS.dct}temporal`]:
      start || end
        ? resource(null, [`${NS.dct}PeriodOfTime`], {
            [`${NS.dcat}startDate`]: start ? typed(start, `${NS.xsd}date`) : undefined,
            [`${NS.dcat}endDate`]: end ? typed(end, `${NS.xsd}date`) : undefined,
          })
        : undefined,
    [dcat.distribution]: pkg.resources.map((res) => distributionResource(origin, pkg, res)),
  });
  return [dataset, ...(publisher ? [publisher] : []), ...themes];
}

export interface DcatPage {
  /** The packages on this page. */
  packages: CkanPackage[];
  /** How many the whole catalogue holds. */
  total: number;
  pageUrl: string;
  nextUrl: string | null;
}

function catalogResource(origin: string, packages: CkanPackage[]): Resource {
  return resource(`${origin}/catalog`, [dcat.Catalog], {
    [dct.title]: text('Portal local de pruebas'),
    [dcat.dataset]: packages.map((pkg) => iri(`${origin}/dataset/${pkg.name}`)),
  });
}

/** One DCAT-AP page in JSON-LD, with its Hydra view. */
export function dcatJsonLdPage(origin: string, page: DcatPage): string {
  const nodes = [catalogResource(origin, page.packages), ...page.packages.flatMap((pkg) => datasetResources(origin, pkg))].map(jsonLdNode);
  const view: Record<string, unknown> = {
    '@id': page.pageUrl,
    '@type': 'hydra:PartialCollectionView',
    'hydra:totalItems': { '@value': page.total, '@type': 'xsd:integer' },
  };
  if (page.nextUrl) view['hydra:next'] = { '@id': page.nextUrl };
  return JSON.stringify({ '@context': { ...CATALOG_CONTEXT, hydra: HYDRA }, '@graph': [...nodes, view] }, null, 1);
}

/** One DCAT-AP page in Turtle, with its Hydra paged collection (ckanext-dcat's style). */
export function dcatTurtlePage(origin: string, page: DcatPage): string {
  const prefixes = [...Object.entries(NS), ['hydra', HYDRA]].map(([prefix, namespace]) => `@prefix ${prefix}: <${namespace}> .\n`).join('');
  const blocks = [catalogResource(origin, page.packages), ...page.packages.flatMap((pkg) => datasetResources(origin, pkg))].map(turtleBlock);
  const paging = [`<${page.pageUrl}> a hydra:PagedCollection`, `    hydra:totalItems ${page.total}`];
  if (page.nextUrl) paging.push(`    hydra:nextPage ${turtleString(page.nextUrl)}`);
  return `${prefixes}\n${blocks.join('\n')}\n${paging.join(' ;\n')} .\n`;
}

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

/**
 * One DCAT-AP page in RDF/XML, as ckanext-dcat serves `catalog.rdf`: the triples of its Turtle
 * page, each subject a node element named by its first type (`<dcat:Dataset rdf:about="…">`),
 * blank nodes by `rdf:nodeID`, literals with their language or datatype.
 */
export function dcatRdfXmlPage(origin: string, page: DcatPage): string {
  const quads = new Parser({ baseIRI: page.pageUrl }).parse(dcatTurtlePage(origin, page));
  const prefixes = new Map<string, string>([[RDF, 'rdf']]);
  const qualified = (value: string) => {
    const cut = Math.max(value.lastIndexOf('#'), value.lastIndexOf('/')) + 1;
    const [namespace, local] = [value.slice(0, cut), value.slice(cut)];
    if (!/^[A-Za-z_][\w.-]*$/.test(local)) throw new Error(`${value} has no local name RDF/XML can write`);
    if (!prefixes.has(namespace)) prefixes.set(namespace, `n${prefixes.size}`);
    return `${prefixes.get(namespace)}:${local}`;
  };
  const node = (term: Quad_Subject | Quad_Object) => (term.termType === 'BlankNode' ? `rdf:nodeID="${term.value}"` : `rdf:about="${escapeXml(term.value)}"`);
  const bySubject = new Map<string, typeof quads>();
  for (const quad of quads) {
    const key = `${quad.subject.termType}:${quad.subject.value}`;
    bySubject.set(key, [...(bySubject.get(key) ?? []), quad]);
  }
  const elements = [...bySubject.values()].map((statements) => {
    const typing = statements.find((quad) => quad.predicate.value === `${RDF}type` && quad.object.termType === 'NamedNode');
    const name = typing ? qualified(typing.object.value) : 'rdf:Description';
    const properties = statements
      .filter((quad) => quad !== typing)
      .map(({ predicate, object }) => {
        const property = qualified(predicate.value);
        if (object.termType === 'NamedNode') return `  <${property} rdf:resource="${escapeXml(object.value)}"/>`;
        if (object.termType === 'BlankNode') return `  <${property} rdf:nodeID="${object.value}"/>`;
        if (object.termType !== 'Literal') throw new Error(`${object.termType} cannot be written`);
        const tag = object.language
          ? ` xml:lang="${object.language}"`
          : object.datatype.value === `${NS.xsd}string` ? '' : ` rdf:datatype="${escapeXml(object.datatype.value)}"`;
        return `  <${property}${tag}>${escapeXml(object.value)}</${property}>`;
      });
    return `<${name} ${node(statements[0]!.subject)}>\n${properties.join('\n')}\n</${name}>`;
  });
  const declarations = [...prefixes].map(([namespace, prefix]) => ` xmlns:${prefix}="${escapeXml(namespace)}"`).join('');
  return `<?xml version="1.0" encoding="utf-8"?>\n<rdf:RDF${declarations}>\n${elements.join('\n')}\n</rdf:RDF>\n`;
}

/** The whole catalogue as a DCAT-US 1.1 data.json, Andino-style (themes as codes with a taxonomy). */
export function dataJson(origin: string, packages: CkanPackage[]): unknown {
  const themes = new Map(packages.flatMap((pkg) => pkg.groups.map((group) => [group.name, group.title] as const)));
  return {
    '@context': 'https://project-open-data.cio.gov/v1.1/schema/catalog.jsonld',
    '@type': 'dcat:Catalog',
    conformsTo: 'https://project-open-data.cio.gov/v1.1/schema',
    title: 'Portal local de pruebas',
    themeTaxonomy: [...themes].map(([id, label]) => ({ id, label })),
    dataset: packages.map((pkg) => ({
      ...dataJsonFacts(pkg),
      '@type': 'dcat:Dataset',
      identifier: pkg.id,
      title: pkg.title,
      description: pkg.notes,
      landingPage: landingPageOf(origin, pkg),
      issued: `${pkg.metadata_created}Z`,
      modified: `${pkg.metadata_modified}Z`,
      license: pkg.license_url,
      keyword: pkg.tags.map((tag) => tag.name),
      publisher: pkg.organization ? { '@type': 'org:Organization', name: pkg.organization.title } : undefined,
      theme: pkg.groups.map((group) => group.name),
      distribution: pkg.resources.map((res) => ({
        '@type': 'dcat:Distribution',
        identifier: res.id,
        title: res.name,
        downloadURL: res.url,
        accessURL: res.url,
        mediaType: res.mimetype ?? undefined,
        format: res.format || undefined,
        byteSize: res.size ?? undefined,
      })),
    })),
  };
}

/** A package's frequency, contact and coverage as DCAT-US 1.1 writes them. */
function dataJsonFacts(pkg: CkanPackage): Record<string, unknown> {
  const { frequency, frequencyCodes, contact, temporal } = packageFacts(pkg);
  return {
    accrualPeriodicity: frequencyCodes?.iso ?? frequency,
    contactPoint: contact.name || contact.email ? { '@type': 'vcard:Contact', fn: contact.name, hasEmail: contact.email ? `mailto:${contact.email}` : undefined } : undefined,
    temporal: temporal.start || temporal.end ? `${temporal.start ?? '..'}/${temporal.end ?? '..'}` : undefined,
  };
}
