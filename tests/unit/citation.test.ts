import { describe, expect, it } from 'vitest';
import { calendarDayDate } from '../../src/lib/domain/calendar-day.ts';
import { recordCitation } from '../../src/lib/server/seo/citation.ts';

const CID = 'bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4';
const accessed = new Date('2026-05-04T15:00:00.000Z');
const base = {
  title: 'Nómina de empleados fijos',
  cid: null,
  issued: null,
  modified: null,
  department: { id: 3, name: 'Ministerio de Hacienda', desciption: null, website: null, acronym: null },
  source: { id: 2, name: 'Portal de datos abiertos', url: 'https://datos.gob.do' },
};

describe('how to cite a record', () => {
  it('names the institution, the year, the title, the archive, the access date and the address', () => {
    const citation = recordCitation(
      { ...base, cid: CID, issued: new Date('2018-06-19T12:00:00.000Z'), modified: new Date('2024-02-22T12:00:00.000Z') },
      { url: `https://archivo.example/single/src/${CID}?assetId=9`, accessed },
    );
    expect(citation).toBe(
      `Ministerio de Hacienda. (2018). Nómina de empleados fijos [Conjunto de datos]. Archivo Abierto. CID: ${CID}. ` +
        `Consultado el 04/05/2026 en https://archivo.example/single/src/${CID}?assetId=9`,
    );
  });

  it('names the version it cites when the record has had more than one file, and the day a catalogue gave as a day keeps its year', () => {
    // 1 January, kept at noon UTC (calendar-day.ts): at midnight it was 31 December in Santo Domingo, and cited as 2020.
    const citation = recordCitation(
      { ...base, cid: CID, issued: calendarDayDate('2021-01-01') },
      { url: 'https://archivo.example/registro/9', accessed, version: 2 },
    );
    expect(citation).toBe(
      `Ministerio de Hacienda. (2021). Nómina de empleados fijos (Versión 2) [Conjunto de datos]. Archivo Abierto. CID: ${CID}. ` +
        'Consultado el 04/05/2026 en https://archivo.example/registro/9',
    );
  });

  it('says "s. f." without a date of the original, and has no CID before the archive holds the file', () => {
    const citation = recordCitation(base, { url: 'https://archivo.example/registro/9', accessed });
    expect(citation).toBe(
      'Ministerio de Hacienda. (s. f.). Nómina de empleados fijos [Conjunto de datos]. Archivo Abierto. Consultado el 04/05/2026 en https://archivo.example/registro/9',
    );
    // The archive's own dates never stand in for the original's year.
    expect(citation).not.toContain('2026)');
  });

  it("takes the year of the original's last change when its publication is unknown, and the source without an institution", () => {
    const citation = recordCitation(
      { ...base, department: null, modified: new Date('2024-02-22T12:00:00.000Z'), title: 'Informe anual.' },
      { url: 'https://archivo.example/registro/9', accessed },
    );
    expect(citation).toMatch(/^Portal de datos abiertos\. \(2024\)\. Informe anual \[Conjunto de datos\]\. Archivo Abierto\. Consultado/);
  });
});
