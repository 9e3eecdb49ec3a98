/**
 * An institution's name inside a Spanish sentence: "publicado por el Instituto Nacional de
 * Estadística", "Sitio web de la Oficina Nacional de Estadística", "de los Comedores Económicos".
 * Spanish puts the article of the noun the name begins with; without it the archive's generated
 * texts read as machine output ("Sitio web de Ministerio de Turismo").
 *
 * The article agrees with that first word: feminine for the endings that are (-a, -ión, -dad,
 * -tad, -tud, but for the few masculine nouns in -a that name bodies), plural for -s. A name that
 * starts with an acronym ("INDOTEL …") or with an article of its own takes none.
 */

/** Nouns in -a that are masculine: `el Sistema`, `el Programa`. */
const MASCULINE_IN_A = new Set(['sistema', 'programa', 'día', 'mapa', 'clima', 'tema', 'esquema']);

const ARTICLES = new Set(['el', 'la', 'los', 'las']);

/** Up to this many capitals, a first word is an acronym ("ONE", "INDOTEL"), not a noun in capitals ("UNIVERSIDAD"). */
const ACRONYM_MAX = 8;

function articleFor(firstWord: string): string | null {
  const word = firstWord.toLowerCase();
  if (ARTICLES.has(word)) return null;
  const capitals = firstWord === firstWord.toUpperCase() && /\p{Lu}/u.test(firstWord);
  const feminine = (/(a|ión|ion|dad|tad|tud)$/.test(word) && !MASCULINE_IN_A.has(word)) || /(as|iones|dades|tades|tudes)$/.test(word);
  if (capitals && firstWord.length <= ACRONYM_MAX && !/(ión|ion|dad)$/.test(word)) return null;
  if (!/^\p{L}/u.test(word)) return null;
  const plural = /[^s]s$/.test(word) && !/(ión|is)$/.test(word);
  if (plural) return feminine ? 'las' : 'los';
  return feminine ? 'la' : 'el';
}

/**
 * `name` with its article, as the subject or after most prepositions: "el Ministerio de Turismo".
 * With `shortName` (its acronym), that is written instead, with the article of the full name: "la ONE".
 */
export function withArticle(name: string, shortName?: string): string {
  const trimmed = name.trim();
  const article = articleFor(trimmed.split(/\s+/)[0] ?? '');
  const written = shortName?.trim() || trimmed;
  return article ? `${article} ${written}` : written;
}

/** "de" and `name` with its article, contracted as Spanish writes it: "del Ministerio", "de la Oficina", "de la ONE". */
export function ofInstitution(name: string, shortName?: string): string {
  const phrase = `de ${withArticle(name, shortName)}`;
  return phrase.startsWith('de el ') ? `del ${phrase.slice('de el '.length)}` : phrase;
}
