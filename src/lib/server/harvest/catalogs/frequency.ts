/**
 * Update frequencies as catalogues declare them, named in Spanish. A record keeps what its
 * catalogue wrote (`alexandrias.update_frequency`); this reads it for people and for the archive's
 * own DCAT output. Three vocabularies are known:
 *
 * - the EU Publications Office's frequency authority table, DCAT-AP's (`…/authority/frequency/MONTHLY`);
 * - Dublin Core's collection description frequencies, DCAT-AP 1.x's and ckanext-dcat's (`http://purl.org/cld/freq/monthly`);
 * - ISO 8601 repeating periods, DCAT-US's and Andino's data.json (`R/P1M`), with DCAT-US's `irregular`.
 *
 * Words a publisher typed (datos.gob.do's "Mensual") are shown as typed; when they are one of the
 * labels below, the DCAT output still gives the vocabulary's IRI, and otherwise the words, as the
 * label of a `dct:Frequency` node (which the DCAT reader, `dcat-graph.ts`, reads back as words).
 */
import { foldLabel } from '../../../domain/text.ts';

export const EU_FREQUENCY_NS = 'http://publications.europa.eu/resource/authority/frequency/';
const CLD_FREQUENCY_NS = 'http://purl.org/cld/freq/';

interface Frequency {
  /** The EU table's code. */
  code: string;
  label: string;
  /** ISO 8601 repeating periods for it (DCAT-US's list). */
  iso?: string[];
  /** Dublin Core's `cld:freq` name. */
  cld?: string;
  /** Other words publishers write for it, folded (no case, no accents). */
  words?: string[];
}

const FREQUENCIES: Frequency[] = [
  { code: 'DECENNIAL', label: 'Cada diez años', iso: ['R/P10Y'], words: ['decenal'] },
  { code: 'QUINQUENNIAL', label: 'Cada cinco años', iso: ['R/P5Y'], words: ['quinquenal'] },
  { code: 'QUADRENNIAL', label: 'Cada cuatro años', iso: ['R/P4Y'], words: ['cuatrienal'] },
  { code: 'TRIENNIAL', label: 'Cada tres años', iso: ['R/P3Y'], cld: 'triennial', words: ['trienal'] },
  { code: 'BIENNIAL', label: 'Cada dos años', iso: ['R/P2Y'], cld: 'biennial', words: ['bienal'] },
  { code: 'ANNUAL', label: 'Anual', iso: ['R/P1Y'], cld: 'annual', words: ['anualmente', 'annual', 'yearly'] },
  { code: 'ANNUAL_2', label: 'Semestral', iso: ['R/P6M'], cld: 'semiannual', words: ['dos veces al ano', 'semiannual'] },
  { code: 'ANNUAL_3', label: 'Tres veces al año', iso: ['R/P4M'], cld: 'threeTimesAYear', words: ['cuatrimestral'] },
  { code: 'QUARTERLY', label: 'Trimestral', iso: ['R/P3M'], cld: 'quarterly', words: ['quarterly'] },
  { code: 'BIMONTHLY', label: 'Cada dos meses', iso: ['R/P2M'], cld: 'bimonthly', words: ['bimestral'] },
  { code: 'MONTHLY', label: 'Mensual', iso: ['R/P1M'], cld: 'monthly', words: ['mensualmente', 'monthly'] },
  { code: 'MONTHLY_2', label: 'Dos veces al mes', iso: ['R/P0.5M'], cld: 'semimonthly', words: ['quincenal'] },
  { code: 'MONTHLY_3', label: 'Tres veces al mes', iso: ['R/P0.33M'], cld: 'threeTimesAMonth' },
  { code: 'BIWEEKLY', label: 'Cada dos semanas', iso: ['R/P2W'], cld: 'biweekly' },
  { code: 'WEEKLY', label: 'Semanal', iso: ['R/P1W'], cld: 'weekly', words: ['semanalmente', 'weekly'] },
  { code: 'WEEKLY_2', label: 'Dos veces por semana', iso: ['R/P0.5W', 'R/P3.5D'], cld: 'semiweekly' },
  { code: 'WEEKLY_3', label: 'Tres veces por semana', iso: ['R/P0.33W'], cld: 'threeTimesAWeek' },
  { code: 'DAILY', label: 'Diaria', iso: ['R/P1D'], cld: 'daily', words: ['diario', 'diariamente', 'daily'] },
  { code: 'HOURLY', label: 'Cada hora', iso: ['R/PT1H'], words: ['hourly'] },
  { code: 'CONT', label: 'Continua', iso: ['R/PT1S'], cld: 'continuous', words: ['continuo', 'continuamente', 'tiempo real'] },
  { code: 'UPDATE_CONT', label: 'Actualización continua' },
  { code: 'IRREG', label: 'Irregular', iso: ['irregular'], cld: 'irregular', words: ['eventual', 'esporadica'] },
  { code: 'NEVER', label: 'No se actualiza', words: ['nunca', 'never'] },
  { code: 'UNKNOWN', label: 'Desconocida', words: ['desconocido', 'unknown'] },
  { code: 'OTHER', label: 'Otra' },
];

/** Each way of writing a known frequency, folded, with its entry. */
const BY_WRITING = new Map<string, Frequency>();
for (const frequency of FREQUENCIES) {
  const writings = [
    `${EU_FREQUENCY_NS}${frequency.code}`,
    frequency.code,
    frequency.label,
    ...(frequency.iso ?? []),
    ...(frequency.cld ? [`${CLD_FREQUENCY_NS}${frequency.cld}`] : []),
    ...(frequency.words ?? []),
  ];
  for (const writing of writings) BY_WRITING.set(foldLabel(writing), frequency);
}

/** The known frequency `declared` writes, if any (an EU IRI with `https`, or a trailing slash, too). */
function knownFrequency(declared: string): Frequency | undefined {
  const folded = foldLabel(declared).replace(/^https:/, 'http:').replace(/\/$/, '');
  return BY_WRITING.get(folded);
}

/** What to show for a declared frequency: its Spanish name when it is a known code, else the text as declared. */
export function frequencyLabel(declared: string): string {
  return knownFrequency(declared)?.label ?? declared;
}

/** The EU vocabulary's IRI for a declared frequency it names, else null. */
export function frequencyIri(declared: string): string | null {
  const known = knownFrequency(declared);
  return known ? `${EU_FREQUENCY_NS}${known.code}` : null;
}
