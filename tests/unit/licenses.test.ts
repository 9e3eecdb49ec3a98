import { describe, expect, it } from 'vitest';
import { licenseName } from '../../src/lib/domain/licenses.ts';

describe('licenseName', () => {
  it('names the open licences catalogues give only by address, however the address is written', () => {
    expect(licenseName('http://www.opendefinition.org/licenses/cc-by')).toBe('Creative Commons Atribución (CC BY)');
    expect(licenseName('https://opendefinition.org/licenses/odc-odbl/')).toBe('Open Database License (ODbL)');
    expect(licenseName('https://creativecommons.org/licenses/by/4.0/')).toBe('Creative Commons Atribución 4.0 (CC BY 4.0)');
    expect(licenseName('http://creativecommons.org/licenses/by-nc-sa/3.0/es/')).toBe('Creative Commons Atribución-NoComercial-CompartirIgual 3.0 (CC BY-NC-SA 3.0)');
    expect(licenseName('https://creativecommons.org/licenses/by-sa/4.0/deed.es')).toBe('Creative Commons Atribución-CompartirIgual 4.0 (CC BY-SA 4.0)');
    expect(licenseName('https://creativecommons.org/licenses/by/4.0/legalcode.es')).toBe('Creative Commons Atribución 4.0 (CC BY 4.0)');
    expect(licenseName('https://creativecommons.org/publicdomain/zero/1.0/')).toBe('Creative Commons Cero 1.0, dominio público (CC0 1.0)');
    expect(licenseName('https://opendatacommons.org/licenses/odbl/1.0/')).toBe('Open Database License (ODbL)');
    expect(licenseName('https://opendatacommons.org/licenses/odbl/1-0/')).toBe('Open Database License (ODbL)');
    expect(licenseName('https://opendatacommons.org/licenses/by/1-0/')).toBe('Open Data Commons Atribución (ODC-By)');
    expect(licenseName('http://opendatacommons.org/licenses/pddl/summary/')).toBe('Open Data Commons Dominio Público (PDDL)');
  });

  it('names nothing it does not know, nor what only looks like a licence', () => {
    for (const url of ['https://datos.gob.do/licencia', 'https://creativecommons.org/licenses/', 'https://creativecommons.org/licenses/nc/4.0/', 'https://creativecommons.org.evil.example/licenses/by/4.0/', 'https://opendefinition.org/licenses/inventada', 'no es una dirección', '']) {
      expect(licenseName(url), url).toBeNull();
    }
  });
});
