/**
 * The names of the open licences catalogues most often give only by address: Creative Commons
 * (its licences and CC0), Open Data Commons, and their Open Definition addresses, which CKAN
 * portals such as datos.gob.do give. A record whose catalogue stated a licence's address and no
 * title reads its name, not a cut address («www.opendefinition.…»). Names as Creative Commons
 * writes them in Spanish; the address stays the link.
 */

/** Creative Commons's licence elements, in their Spanish names. */
const CC_ELEMENTS: Record<string, string> = { by: 'Atribución', nc: 'NoComercial', nd: 'SinDerivadas', sa: 'CompartirIgual' };

/** Open Definition's and Open Data Commons's licences, by their last path segment. */
const NAMED: Record<string, string> = {
  'cc-by': 'Creative Commons Atribución (CC BY)',
  'cc-by-sa': 'Creative Commons Atribución-CompartirIgual (CC BY-SA)',
  'cc-zero': 'Creative Commons Cero, dominio público (CC0)',
  'cc-nc': 'Creative Commons NoComercial (CC BY-NC)',
  'odc-by': 'Open Data Commons Atribución (ODC-By)',
  'odc-odbl': 'Open Database License (ODbL)',
  'odc-pddl': 'Open Data Commons Dominio Público (PDDL)',
  by: 'Open Data Commons Atribución (ODC-By)',
  odbl: 'Open Database License (ODbL)',
  pddl: 'Open Data Commons Dominio Público (PDDL)',
};

/** The name of the licence at `url`, or null for an address this list does not know. */
export function licenseName(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const host = parsed.hostname.toLowerCase().replace(/^www\./, '');
  const path = parsed.pathname.toLowerCase().replace(/\/+$/, '');
  if (host === 'creativecommons.org') {
    const licence = /^\/licenses\/((?:by|nc|nd|sa)(?:-(?:nc|nd|sa))*)\/(\d\.\d)(?:\/[a-z]{2})?(?:\/(?:deed\.[a-z-]+|legalcode(?:\.[a-z-]+)?))?$/.exec(path);
    if (licence && licence[1]!.startsWith('by')) {
      const [elements, version] = [licence[1]!, licence[2]!];
      return `Creative Commons ${elements.split('-').map((element) => CC_ELEMENTS[element]).join('-')} ${version} (CC ${elements.toUpperCase()} ${version})`;
    }
    if (/^\/publicdomain\/zero\/1\.0(?:\/(?:deed\.[a-z-]+|legalcode(?:\.[a-z-]+)?))?$/.test(path)) return 'Creative Commons Cero 1.0, dominio público (CC0 1.0)';
    return null;
  }
  if (host === 'opendefinition.org') return NAMED[/^\/licenses\/([a-z-]+)$/.exec(path)?.[1] ?? ''] ?? null;
  if (host === 'opendatacommons.org') {
    // Versions written «1.0» or, in its current addresses, «1-0».
    const licence = /^\/licenses\/(by|odbl|pddl)(?:\/(?:\d[.-]\d(?:\/)?)?(?:summary)?)?$/.exec(path);
    return licence ? NAMED[licence[1]!]! : null;
  }
  return null;
}
