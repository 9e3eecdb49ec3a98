/**
 * Reading the real Dominican material in the fixtures folder into plain seed data: the publishers
 * of datos.gob.do enriched with the official lists of public bodies, the portal's themes, and its
 * 1,065 datasets. Nothing here touches the database.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import Papa from 'papaparse';

export const PORTAL = {
  name: 'Portal de Datos Abiertos de la República Dominicana',
  url: 'https://datos.gob.do',
  description:
    'Portal nacional de datos abiertos (CKAN), donde las instituciones del Estado dominicano publican sus conjuntos de datos.',
  datasetUrl: (slug: string) => `https://datos.gob.do/dataset/${encodeURIComponent(slug)}`,
} as const;

export interface SeedDepartment {
  name: string;
  acronym: string | null;
  desciption: string | null;
  website: string | null;
  legalCategory: string | null;
  branch: string | null;
  sector: string | null;
}

export interface SeedDataset {
  slug: string;
  title: string;
  org: string;
  /** Labels exactly as the portal published them. */
  publishedFormats: string[];
  /** The portal's groups (themes) of the dataset, in its order. */
  groups: string[];
}

export interface SeedCatalog {
  exportedOn: string;
  /** Where the export was taken from (`https://datos.gob.do/dataset/`). */
  source: string;
  departments: SeedDepartment[];
  datasets: SeedDataset[];
  groups: string[];
}

interface CatalogFile {
  generado: string;
  fuente: string;
  conjuntos: Array<{ slug: string; titulo: string; org: string; formatos: string[]; grupos: string[] }>;
}

/** Words that the lists drop or add freely ("de", "del", "la"...). */
const FILLER = new Set(['de', 'del', 'la', 'las', 'los', 'el', 'y', 'e', 'en', 'para', 'a', 'dominicana', 'dominicano']);

/** Bodies the lists name too differently for any folding, keyed by `nameKey` of the official list. */
const ALIASES: Record<string, string> = {
  'oficina defensa civil': 'defensa civil',
  // The official list's full names of bodies the portal publishes under a shorter one.
  'direccion general proyecto estrategico especiale presidencia': 'direccion general proyecto estrategico especiale',
  'instituto educacion superior formacion diplomatica consular dr eduardo latorre rodriguez': 'instituto educacion superior formacion diplomatica consular',
  'jardin botanico nacional dr rafael m moscoso': 'jardin botanico nacional',
  'parque zoologico nacional arq manuel valverde podesta': 'parque zoologico nacional',
  'direccion ejecutiva sistema nacional atencion emergencia seguridad': 'sistema nacional atencion emergencia seguridad',
  // INAVI, the Instituto de Auxilios y Viviendas; GPS, the Gabinete de Coordinación de Políticas Sociales;
  // TNR, the Comisión de Fomento a la Tecnificación del Sistema Nacional de Riego.
  'instituto auxilio': 'instituto auxilio vivienda',
  'gabinete coordinacion politica social': 'gabinete politica sociale',
  'comision fomento tecnificacion sistema nacional riego': 'tecnificacion nacional riego',
};

/**
 * A key under which the same public body matches across the lists, whatever their spelling:
 * accents, case, punctuation, a trailing acronym with or without brackets ("... MIVHED",
 * "... | CORAAMOCA"), "de la República (Dominicana)", filler words and plurals all fold away.
 */
/** An upper-case word (letters, digits, hyphens): an acronym. */
const ACRONYM_WORD = /^[A-ZÁÉÍÓÚÑ0-9][A-ZÁÉÍÓÚÑ0-9-]+$/u;

/**
 * The name without the acronyms that trail it ("... MIVHED"), word by word: a regular expression
 * anchored at the end retried from every position, and took quadratic time on a long name a
 * harvested catalogue could send.
 */
function withoutTrailingAcronyms(name: string): string {
  const words = name.trimEnd().split(/\s+/);
  while (words.length > 1 && ACRONYM_WORD.test(words.at(-1)!)) words.pop();
  return words.join(' ');
}

export function nameKey(name: string): string {
  const words = withoutTrailingAcronyms(name.replace(/\([^)]*\)/g, ' ').replace(/\|.*$/, ' '))
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase()
    .replace(/\bde la republica( dominicana)?\b/g, ' ')
    .split(/[^a-z0-9]+/)
    .filter((word) => word && !FILLER.has(word))
    .map((word) => (word.length > 4 && word.endsWith('s') ? word.slice(0, -1) : word));
  const key = words.join(' ');
  return ALIASES[key] ?? key;
}

/** The acronym in a publisher's name, "Oficina Nacional de Estadística (ONE)" → "ONE". */
export function acronymInName(name: string): string | null {
  return /\(([^()]+)\)\s*$/.exec(name)?.[1]?.trim() ?? null;
}

async function readCsv(file: string): Promise<Array<Record<string, string>>> {
  const text = await fs.readFile(file, 'utf8');
  const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true });
  return parsed.data;
}

function describeBody(legalCategory: string | null, branch: string | null, sector: string | null): string | null {
  if (!legalCategory) return null;
  const parts = [legalCategory];
  if (branch) parts.push(`del ${branch}`);
  if (sector) parts.push(`(sector ${sector})`);
  return `${parts.join(' ')}.`;
}

/** Loads the catalogue and the lists of public bodies from `fixturesDir`. */
export async function readSeedCatalog(fixturesDir: string): Promise<SeedCatalog> {
  const catalog = JSON.parse(
    await fs.readFile(path.join(fixturesDir, 'catalog/datos-gob-do-catalogo-2026-09-24.json'), 'utf8'),
  ) as CatalogFile;
  const publishers = await readCsv(path.join(fixturesDir, 'orgs/organizaciones-datos-gob-do.csv'));
  const bodies = await readCsv(path.join(fixturesDir, 'orgs/entidades-gubernamentales-do.csv'));
  const withWebsites = await readCsv(path.join(fixturesDir, 'orgs/entidades-siglas-sitio-web-do.csv'));

  const bodyByKey = new Map(bodies.map((row) => [nameKey(row.nombre ?? ''), row]));
  const websiteByKey = new Map<string, { acronym: string; website: string }>();
  const websiteByAcronym = new Map<string, string>();
  for (const row of withWebsites) {
    const website = row.sitio_web?.trim();
    // The hand-curated list has rows whose commas shifted columns: keep only real web addresses.
    if (!website || !/^https?:\/\//.test(website)) continue;
    websiteByKey.set(nameKey(row.nombre ?? ''), { acronym: row.siglas ?? '', website });
    if (row.siglas) websiteByAcronym.set(row.siglas.toUpperCase(), website);
  }
  const acronymByPublisher = new Map(
    publishers.map((row) => [nameKey(row.organizacion ?? ''), row.siglas_extraidas?.trim() || null]),
  );

  const departments = new Map<string, SeedDepartment>();
  const websites = new Set<string>();
  const addDepartment = (name: string, acronym: string | null) => {
    const key = nameKey(name);
    if (departments.has(key)) return;
    const body = bodyByKey.get(key);
    const known = websiteByKey.get(key);
    const website = known?.website ?? (acronym ? websiteByAcronym.get(acronym.toUpperCase()) ?? null : null);
    // Issuers are de-duplicated by website (DECISIONS): "Ministerio Público" is the PGR's other name.
    if (website && websites.has(website)) return;
    if (website) websites.add(website);
    const legalCategory = body?.categoria?.trim() || null;
    const branch = body?.poder_del_estado?.trim() || null;
    const sector = body?.sector?.trim() || null;
    departments.set(key, {
      name,
      acronym: acronym ?? (known?.acronym || null),
      desciption: describeBody(legalCategory, branch, sector),
      website,
      legalCategory,
      branch,
      sector,
    });
  };

  // The portal's publishers first, with the names the catalogue uses, then the other public bodies.
  const publisherKeys = new Set<string>();
  for (const name of new Set(catalog.conjuntos.map((dataset) => dataset.org))) {
    publisherKeys.add(nameKey(name));
    addDepartment(name, acronymByPublisher.get(nameKey(name)) ?? acronymInName(name));
  }
  for (const row of bodies) if (row.nombre) addDepartment(row.nombre.trim(), null);
  // Lists show the newest rows first, and every seeded row is as new as the others: inserting the
  // bodies that publish nothing before the publishers puts the publishers at the top of the lists.
  const ordered = [...departments.entries()]
    .sort(([a], [b]) => Number(publisherKeys.has(a)) - Number(publisherKeys.has(b)))
    .map(([, department]) => department);

  const groups = new Set<string>();
  const datasets = catalog.conjuntos.map((dataset): SeedDataset => {
    for (const group of dataset.grupos) groups.add(group);
    return { slug: dataset.slug, title: dataset.titulo.trim(), org: dataset.org, publishedFormats: dataset.formatos, groups: dataset.grupos };
  });

  return { exportedOn: catalog.generado, source: catalog.fuente, departments: ordered, datasets, groups: [...groups] };
}
