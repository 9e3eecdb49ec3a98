/**
 * An institution's name inside a Spanish sentence: "publicado por el Instituto Nacional de
 * Estadística", "Sitio web de la Oficina Nacional de Estadística", "de los Comedores Económicos".
 * Spanish puts the article of the noun the name begins with; without it the archive's generated
 * texts read as machine output ("Sitio web de Ministerio de Turismo").
 *
 * The article agrees with that first word: feminine for the endings that are (-a, -ión, -dad,
 * -tad, -tud, but for the few masculine nouns in -a that name bodies) and a few other nouns (la
 * Corte, la Red), `el` before a stressed a- (el Área), plural for -s. A name that starts with an
 * acronym ("INDOTEL …") or with an article of its own takes none.
 */

/** Nouns in -a that are masculine: `el Sistema`, `el Programa`. */
const MASCULINE_IN_A = new Set(['sistema', 'programa', 'día', 'mapa', 'clima', 'tema', 'esquema']);

/** Feminine nouns with other endings that name bodies: `la Corte`, `la Red`, `la Cruz Roja`. */
const FEMININE_OTHERS = new Set(['corte', 'red', 'cruz', 'sede', 'base', 'ley', 'parte', 'torre']);

/** Feminine nouns with a stressed a- take `el` in the singular: `el Área`, `el Agua`. */
const STRESSED_A = new Set(['área', 'agua', 'aula', 'arma', 'alma', 'águila']);

const ARTICLES = new Set(['el', 'la', 'los', 'las']);

/** Up to this many capitals, a word is an acronym ("ONE", "INDOTEL"); longer, a brand ("PRODOMINICANA"). */
const ACRONYM_MAX = 8;

type Article = 'el' | 'la' | 'los' | 'las';

/** The article of a name that begins with `firstWord` (a noun, said in full), or null for none. */
function articleFor(firstWord: string): Article | null {
  const word = firstWord.toLowerCase();
  if (ARTICLES.has(word) || !/^\p{L}/u.test(word)) return null;
  const plural = /[^s]s$/.test(word) && !/(ión|is)$/.test(word);
  const singular = plural ? word.replace(/(es|s)$/, '') : word;
  const feminine =
    FEMININE_OTHERS.has(singular) ||
    STRESSED_A.has(singular) ||
    (/(a|ión|ion|dad|tad|tud)$/.test(singular) && !MASCULINE_IN_A.has(singular));
  if (plural) return feminine ? 'las' : 'los';
  if (STRESSED_A.has(word)) return 'el';
  return feminine ? 'la' : 'el';
}

/** Whether `name` begins with an acronym (`INDOTEL`, `ONE …`) rather than a noun written in capitals. */
function startsWithAcronym(name: string, firstWord: string): boolean {
  const capitals = (text: string) => text === text.toUpperCase() && /\p{Lu}/u.test(text);
  if (!capitals(firstWord) || firstWord.length > ACRONYM_MAX) return false;
  const rest = name.slice(firstWord.length).trim();
  // A whole name in capitals ("OFICINA NACIONAL DE ESTADÍSTICA") begins with a noun.
  return rest === '' || !capitals(rest);
}

function articleOfName(name: string): Article | null {
  const firstWord = name.split(/\s+/)[0] ?? '';
  return startsWithAcronym(name, firstWord) ? null : articleFor(firstWord);
}

/**
 * `name` with its article, as the subject or after most prepositions: "el Ministerio de Turismo".
 * With `shortName` (its acronym), that is written instead, with the article of the full name: "la ONE".
 */
export function withArticle(name: string, shortName?: string): string {
  const trimmed = name.trim();
  const short = shortName?.trim();
  const article = articleOfName(trimmed);
  if (!short) return article ? `${article} ${trimmed}` : trimmed;
  // An acronym takes the singular article of its noun ("la ONE"); a plural body's acronym, or a
  // brand too long to be one ("PRODOMINICANA"), takes none.
  const fits = (article === 'el' || article === 'la') && short.length <= ACRONYM_MAX;
  return fits ? `${article} ${short}` : short;
}

/** "de" and `name` with its article, contracted as Spanish writes it: "del Ministerio", "de la Oficina", "de la ONE". */
export function ofInstitution(name: string, shortName?: string): string {
  const phrase = `de ${withArticle(name, shortName)}`;
  return phrase.startsWith('de el ') ? `del ${phrase.slice('de el '.length)}` : phrase;
}
