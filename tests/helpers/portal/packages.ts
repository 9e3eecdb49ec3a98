/**
 * The local portal's catalogue: the five packages of the real CKAN `package_search` sample
 * (datos.gob.do), with each resource URL pointed at a local copy of a real fixture file of the
 * declared format. The last part of each original URL is kept as it was, spaces and all, so a
 * harvester still meets the portal's hand-typed URLs. What the catalogue declares about a file
 * matches the served bytes: a size where the sample declared one, and a SHA-256 checksum on the
 * first resource of each package (a test that wants a mismatch edits `portal.packages`).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { fixturePath } from '../fixtures.ts';

/** A CKAN resource, as `package_search` answers it (only the fields the portal reads are typed). */
export interface CkanResource {
  id: string;
  url: string;
  name: string | null;
  format: string;
  mimetype: string | null;
  size: number | null;
  hash: string;
  [field: string]: unknown;
}

export interface CkanGroup {
  id: string;
  name: string;
  title: string;
  [field: string]: unknown;
}

/** A CKAN package, as `package_search` answers it. */
export interface CkanPackage {
  id: string;
  name: string;
  title: string;
  notes: string | null;
  url: string | null;
  metadata_created: string;
  metadata_modified: string;
  license_title: string | null;
  license_url: string | null;
  tags: Array<{ name: string; [field: string]: unknown }>;
  organization: { id: string; name: string; title: string; [field: string]: unknown } | null;
  groups: CkanGroup[];
  resources: CkanResource[];
  [field: string]: unknown;
}

/** A fixture file the portal serves for a resource. */
export interface PortalFile {
  path: string;
  mediaType: string;
  /** Size and SHA-256 of what is served: the fixture's bytes, then `suffix` when there is one. */
  size: number;
  sha256: string;
  /** Text served after the fixture's bytes (`generatedPackages`), so that a copy has a CID of its own. */
  suffix?: string;
}

export const CKAN_SAMPLE_PATH = fixturePath('catalog', 'datos-gob-do-ckan-package-search-sample.json');

/** The fixture files served for each declared format (taken in turn when there are several). */
const FILES_BY_FORMAT: Record<string, { mediaType: string; files: string[] }> = {
  CSV: {
    mediaType: 'text/csv',
    files: [
      'csv/zonas-francas-textil-2003-2023.csv',
      'csv/empleos-cotizantes-tss-2003-2026.csv',
      'csv/empresas-servicios-turisticos-mitur-2018-2025.csv',
      'csv/salario-minimo-hacienda-2000-2025.csv',
      'csv/licencias-construccion-mivhed-2022-2025.csv',
    ],
  },
  ODS: { mediaType: 'application/vnd.oasis.opendocument.spreadsheet', files: ['spreadsheets/cnss-recaudos-sfs-2003-2023.ods'] },
  XLSX: {
    mediaType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    files: ['spreadsheets/cnss-recaudos-sfs-2003-2023.xlsx', 'spreadsheets/one-primas-netas-seguros-2015-2023.xlsx'],
  },
  XLS: { mediaType: 'application/vnd.ms-excel', files: ['spreadsheets/one-companias-aseguradoras-1995-2022.xls'] },
  // The sample's one resource without a format is a transparency-portal download: a PDF report.
  '': { mediaType: 'application/pdf', files: ['pdf/sisalril-pespj-d1.pdf'] },
};

/** The sample's packages, exactly as the real portal answered them. */
export function samplePackages(): CkanPackage[] {
  const answer = JSON.parse(fs.readFileSync(CKAN_SAMPLE_PATH, 'utf8')) as { result: { results: CkanPackage[] } };
  return answer.result.results;
}

const fileCache = new Map<string, PortalFile>();

function portalFile(relativePath: string, mediaType: string): PortalFile {
  let file = fileCache.get(relativePath);
  if (!file) {
    const path = fixturePath('files', relativePath);
    const bytes = fs.readFileSync(path);
    file = { path, mediaType, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
    fileCache.set(relativePath, file);
  }
  return file;
}

/** The last segment of a URL as typed (spaces and query kept), for the local copy's URL. */
function lastSegment(url: string): string {
  const segment = url.slice(url.lastIndexOf('/') + 1);
  return segment || 'archivo';
}

/**
 * The sample's packages served from `origin`: each resource at `/files/{resource id}/{original
 * name}`, with the file behind it in `files` (by resource id).
 */
export function localPackages(origin: string): { packages: CkanPackage[]; files: Map<string, PortalFile> } {
  const files = new Map<string, PortalFile>();
  const turns = new Map<string, number>();
  const packages = samplePackages().map((pkg) => ({
    ...pkg,
    resources: pkg.resources.map((resource, index) => {
      const format = resource.format.trim().toUpperCase();
      const choice = FILES_BY_FORMAT[format] ?? FILES_BY_FORMAT['']!;
      const turn = turns.get(format) ?? 0;
      turns.set(format, turn + 1);
      const file = portalFile(choice.files[turn % choice.files.length]!, choice.mediaType);
      files.set(resource.id, file);
      return {
        ...resource,
        url: `${origin}/files/${resource.id}/${lastSegment(resource.url)}`,
        size: resource.size === null ? null : file.size,
        hash: index === 0 ? `sha256:${file.sha256}` : resource.hash,
      };
    }),
  }));
  return { packages, files };
}

/** The bytes served for `file`: the fixture's, then its `suffix`. */
export function portalFileBytes(file: PortalFile): Buffer {
  const bytes = fs.readFileSync(file.path);
  return file.suffix ? Buffer.concat([bytes, Buffer.from(file.suffix)]) : bytes;
}

/**
 * A CSV file's copy with one more row of its own (`copia N` in the first column, the rest empty,
 * in the file's own separator), so that every copy is a different file with a different CID, as
 * the files of a real catalogue are. Other formats are served as they are: their containers
 * (zip, PDF) do not take a byte more without becoming something else.
 */
function distinctCopy(file: PortalFile, copy: number): PortalFile {
  if (file.mediaType !== 'text/csv') return file;
  const bytes = fs.readFileSync(file.path);
  const header = bytes.subarray(0, Math.max(0, bytes.indexOf(10))).toString('utf8');
  const separator = (header.match(/;/g)?.length ?? 0) > (header.match(/,/g)?.length ?? 0) ? ';' : ',';
  const columns = header.split(separator).length;
  const suffix = `${bytes.at(-1) === 10 ? '' : '\n'}copia ${copy}${separator.repeat(columns - 1)}\n`;
  const sha256 = createHash('sha256').update(bytes).update(suffix).digest('hex');
  return { ...file, size: bytes.length + Buffer.byteLength(suffix), sha256, suffix };
}

/** A UUID-shaped identifier of copy `copy` of `id`: its last twelve hex digits replaced by the copy's number. */
const copyId = (id: string, copy: number) => `${id.slice(0, -12)}${copy.toString(16).padStart(12, '0')}`;

/**
 * A catalogue of `count` datasets shaped like the real sample: the sample's packages served from
 * `origin` (`localPackages`) in turn, copy N of each with its own id, name, title and resource
 * ids, and its CSV files made distinct (`distinctCopy`). The first copy is the sample itself.
 * For tests that need a catalogue big enough to take a while (a crash in the middle of a harvest).
 */
export function generatedPackages(origin: string, count: number): { packages: CkanPackage[]; files: Map<string, PortalFile> } {
  const sample = localPackages(origin);
  const files = new Map(sample.files);
  const packages: CkanPackage[] = [];
  for (let n = 0; n < count; n++) {
    const pkg = sample.packages[n % sample.packages.length]!;
    const copy = Math.floor(n / sample.packages.length);
    if (copy === 0) {
      packages.push(pkg);
      continue;
    }
    packages.push({
      ...pkg,
      id: copyId(pkg.id, copy),
      name: `${pkg.name}-copia-${copy}`,
      title: `${pkg.title} (copia ${copy})`,
      resources: pkg.resources.map((resource) => {
        const id = copyId(resource.id, copy);
        const file = distinctCopy(sample.files.get(resource.id)!, copy);
        files.set(id, file);
        const name = resource.url.slice(resource.url.lastIndexOf('/') + 1);
        return {
          ...resource,
          id,
          url: `${origin}/files/${id}/${name}`,
          size: resource.size === null ? null : file.size,
          hash: resource.hash.startsWith('sha256:') ? `sha256:${file.sha256}` : resource.hash,
        };
      }),
    });
  }
  return { packages, files };
}
