/**
 * The harvest benchmark's CKAN catalogue (issue #18, "Fast"): `package_search` packages shaped like
 * the real sample of datos.gob.do (every field the portal answers, the sample's own packages taken
 * as templates in turn), with the titles, publishers, groups and formats of the real catalogue's
 * 1,065 datasets (`catalog/datos-gob-do-catalogo-2026-09-24.json`), repeated with an edition
 * number up to the size asked. So the harvest meets the real portal's 260 organisations and 11
 * groups, which the seed already has as departments and categories, as it would on datos.gob.do.
 *
 * Each dataset has 1 to 3 resources (the real dataset's formats, at most three). `files` of them,
 * the first resource of evenly spread datasets, are a CSV of about `fileBytes` that the same portal
 * serves, with its size and SHA-256 declared as CKAN declares them. Every other resource has an
 * empty `url`, as CKAN leaves a resource whose upload never finished: it becomes a record without
 * a file and queues no capture, so exactly `files` captures are attempted. (URLs elsewhere would
 * be fetched too, or, unreachable, would time the benchmark on failures instead of captures.)
 *
 * Deterministic: the same sizes give the same catalogue and the same bytes on every run.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { samplePackages, type CkanPackage, type CkanResource } from '../tests/helpers/portal/index.ts';

export interface CatalogSize {
  datasets: number;
  /** Resources with a file to capture; at most one per dataset. */
  files: number;
  /** Each file's size, about (a CSV ends on a whole row). */
  fileBytes: number;
}

export interface GeneratedCatalog {
  packages: CkanPackage[];
  /** The served files by URL path (`/files/{resource id}/{name}`). */
  files: Map<string, Buffer>;
}

/** The real catalogue's listing, as the seed reads it. */
interface RealCatalog {
  conjuntos: Array<{ slug: string; titulo: string; org: string; formatos: string[]; grupos: string[] }>;
}

const MEDIA_TYPES: Record<string, string> = {
  CSV: 'text/csv',
  XLSX: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  XLS: 'application/vnd.ms-excel',
  ODS: 'application/vnd.oasis.opendocument.spreadsheet',
  PDF: 'application/pdf',
  JSON: 'application/json',
};

/** A UUID-shaped identifier, stable for `seed`, as CKAN's ids look. */
function uuidOf(seed: string): string {
  const hex = createHash('md5').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** CKAN's names: lower case, ASCII, hyphens. */
function slugOf(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 90);
}

/** CKAN's timestamps: UTC without a zone, microseconds. */
function ckanTime(day: number, second: number): string {
  const date = new Date(Date.UTC(2017, 0, 1) + day * 86_400_000 + second * 1000);
  return `${date.toISOString().slice(0, 19)}.000000`;
}

/** xorshift32: deterministic numbers for the files' rows. */
function numbers(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

const PROVINCES = ['Distrito Nacional', 'Santo Domingo', 'Santiago', 'La Vega', 'San Cristóbal', 'Puerto Plata', 'La Altagracia', 'Duarte', 'Azua', 'Peravia'];
const CONCEPTS = ['Nómina fija', 'Compras y contrataciones', 'Ejecución presupuestaria', 'Solicitudes de información', 'Servicios ofrecidos', 'Recaudación'];

/** A CSV of about `bytes`, different for every `number`: monthly figures by province, as portals publish them. */
export function fileBytesOf(number: number, bytes: number): Buffer {
  const next = numbers(0x9e3779b9 ^ (number * 2654435761));
  const rows = ['anio,mes,provincia,concepto,expediente,monto_rd'];
  let length = rows[0]!.length + 1;
  for (let row = 0; length < bytes; row += 1) {
    const line =
      `${2015 + (row % 11)},${1 + (row % 12)},${PROVINCES[next() % PROVINCES.length]},${CONCEPTS[next() % CONCEPTS.length]},` +
      `EXP-${number}-${row},${(next() % 100_000_000) / 100}`;
    rows.push(line);
    length += Buffer.byteLength(line) + 1;
  }
  return Buffer.from(`${rows.join('\n')}\n`);
}

/** The catalogue served from `origin`; `fixturesDir` holds the real catalogue and the sample. */
export function generateCatalog(origin: string, fixturesDir: string, size: CatalogSize): GeneratedCatalog {
  const real = (JSON.parse(fs.readFileSync(path.join(fixturesDir, 'catalog/datos-gob-do-catalogo-2026-09-24.json'), 'utf8')) as RealCatalog).conjuntos;
  const templates = samplePackages();
  const resourceTemplate = templates[0]!.resources[0]!;
  const organisations = new Map<string, NonNullable<CkanPackage['organization']>>();
  const organisationOf = (title: string) => {
    let organisation = organisations.get(title);
    if (!organisation) {
      const template = templates[organisations.size % templates.length]!.organization!;
      organisation = {
        ...template,
        id: uuidOf(`org:${title}`),
        name: slugOf(title),
        title,
        description: `${title}: institución pública que publica sus datos en el portal nacional de datos abiertos.`,
        image_url: '',
      };
      organisations.set(title, organisation);
    }
    return organisation;
  };
  const groupOf = (title: string) => {
    const template = templates[0]!.groups[0]!;
    return { ...template, id: uuidOf(`group:${title}`), name: slugOf(title), title, display_name: title, image_display_url: '' };
  };

  const files = new Map<string, Buffer>();
  // Every `spacing`-th dataset's first resource has a file: spread over the whole catalogue, so
  // the captures are queued page by page as the harvest goes, not all at its start or end.
  const spacing = size.files > 0 ? size.datasets / Math.min(size.files, size.datasets) : Infinity;
  let filesMade = 0;
  const packages = Array.from({ length: size.datasets }, (_, index): CkanPackage => {
    const base = real[index % real.length]!;
    const template = templates[index % templates.length]!;
    const edition = Math.floor(index / real.length);
    const title = edition === 0 ? base.titulo.trim() : `${base.titulo.trim()} (edición ${edition + 1})`;
    const id = uuidOf(`package:${index}`);
    const name = slugOf(edition === 0 ? base.slug : `${base.slug}-${edition + 1}`);
    const organization = organisationOf(base.org);
    const formats = (base.formatos.length ? base.formatos : ['CSV']).slice(0, 3);
    const withFile = filesMade < size.files && Math.floor(filesMade * spacing) === index;
    if (withFile) {
      // The captured file is a CSV: put CSV first, so what is declared is what is served.
      formats.splice(formats.indexOf('CSV') >= 0 ? formats.indexOf('CSV') : formats.length - 1, 1);
      formats.unshift('CSV');
    }
    const created = ckanTime(index % 3000, index);
    const resources = formats.map((format, position): CkanResource => {
      const resourceId = uuidOf(`resource:${index}:${position}`);
      const resource: CkanResource = {
        ...resourceTemplate,
        created,
        description: `${title} en formato ${format}.`,
        format,
        hash: '',
        id: resourceId,
        metadata_modified: created,
        mimetype: null,
        name: title,
        package_id: id,
        position,
        size: null,
        url: '',
      };
      if (withFile && position === 0) {
        const filePath = `/files/${resourceId}/${name.slice(0, 60)}.csv`;
        const bytes = fileBytesOf(filesMade, size.fileBytes);
        files.set(filePath, bytes);
        filesMade += 1;
        Object.assign(resource, {
          url: `${origin}${filePath}`,
          mimetype: MEDIA_TYPES.CSV,
          size: bytes.length,
          hash: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
        });
      } else {
        resource.mimetype = MEDIA_TYPES[format] ?? null;
      }
      return resource;
    });
    const groups = base.grupos.map(groupOf);
    const tags = [...new Set([...base.grupos, organization.title.match(/\(([^)]+)\)\s*$/)?.[1] ?? 'Datos abiertos'])].map((tag) => ({
      display_name: tag,
      id: uuidOf(`tag:${tag}`),
      name: tag,
      state: 'active',
      vocabulary_id: null,
    }));
    return {
      ...template,
      id,
      name,
      title,
      notes: `${title}. Datos publicados por ${organization.title} en el portal nacional de datos abiertos de la República Dominicana, actualizados periódicamente.`,
      // No origin page: the landing page is the dataset's page on the portal, as for most packages.
      url: null,
      metadata_created: created,
      metadata_modified: ckanTime((index % 3000) + 30, index),
      organization,
      owner_org: organization.id,
      groups,
      tags,
      num_tags: tags.length,
      resources,
      num_resources: resources.length,
    };
  });
  return { packages, files };
}
