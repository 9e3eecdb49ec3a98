/**
 * The real published files in `fixtures/files` that the seed archives, with what is known of each:
 * who issued it, where the issuer publishes, and how this copy reached us. None of them came with
 * a screenshot proving its origin, and the records say so instead of inventing one.
 */
export interface SeedFile {
  /** Path under `fixtures/files`; also the record's natural key. */
  path: string;
  title: string;
  description: string;
  /** Issuer, matched by acronym against the seeded departments. */
  issuerAcronym: string;
  /** Issuer's own website: the source where it publishes directly. */
  issuerWebsite: string;
  category: string;
  /** Public repository and commit this copy was taken from. */
  copiedFrom: string;
}

const RD_JOBS = 'github.com/Sanba-Development/rd-job-visualizer (commit a21276296227)';
const ARS = 'github.com/erid144/Analisis-de-las-ARS-en-el-Seguro-Familiar-de-Salud-de-la-Republica-Dominicana';

export const SEED_FILES: readonly SeedFile[] = [
  {
    path: 'csv/salario-minimo-hacienda-2000-2025.csv',
    title: 'Salario mínimo por sector y tamaño de empresa, 2000-2025',
    description: 'Salarios mínimos mensuales vigentes en la República Dominicana de enero de 2000 a 2025, por sector, tamaño de empresa y área de actividad.',
    issuerAcronym: 'MHE',
    issuerWebsite: 'https://hacienda.gob.do',
    category: 'Economía',
    copiedFrom: RD_JOBS,
  },
  {
    path: 'csv/licencias-construccion-mivhed-2022-2025.csv',
    title: 'Licencias de construcción emitidas, 2022-2025',
    description: 'Licencias de construcción emitidas por fecha, provincia, municipio y sector, con tipología, metros cuadrados e inversión total declarada.',
    issuerAcronym: 'MIVHED',
    issuerWebsite: 'https://mivhed.gob.do',
    category: 'Urbanismo',
    copiedFrom: RD_JOBS,
  },
  {
    path: 'csv/empresas-servicios-turisticos-mitur-2018-2025.csv',
    title: 'Licencias de empresas y servicios turísticos, 2018-2025',
    description: 'Licencias nuevas, renovaciones y cambios de dirección o de categoría de agencias de viajes, hoteles y otros servicios turísticos, por trimestre y año.',
    issuerAcronym: 'MITUR',
    issuerWebsite: 'https://mitur.gob.do',
    category: 'Economía',
    copiedFrom: RD_JOBS,
  },
  {
    path: 'csv/empleos-cotizantes-tss-2003-2026.csv',
    title: 'Empleos cotizantes a la seguridad social por mes, 2003-2026',
    description: 'Número mensual de empleos que cotizan a la Seguridad Social en la empresa privada y en el sector público centralizado y descentralizado, desde junio de 2003.',
    issuerAcronym: 'TSS',
    issuerWebsite: 'https://tss.gob.do',
    category: 'Sociedad y bienestar',
    copiedFrom: RD_JOBS,
  },
  {
    path: 'csv/zonas-francas-textil-2003-2023.csv',
    title: 'Empresas textiles de zonas francas: empleo, exportaciones y salarios, 2003-2023',
    description: 'Empresas, empleos, exportaciones en millones de dólares y salarios promedio de técnicos y operarios del sector textil de zonas francas, por año.',
    issuerAcronym: 'CNZFE',
    issuerWebsite: 'https://cnzfe.gob.do',
    category: 'Economía',
    copiedFrom: RD_JOBS,
  },
  {
    path: 'spreadsheets/cnss-recaudos-sfs-2003-2023.xlsx',
    title: 'Recaudos del Seguro Familiar de Salud, 2003-2023 (XLSX)',
    description: 'Recaudación del Seguro Familiar de Salud del Sistema Dominicano de Seguridad Social, serie 2003-2023, en hoja de cálculo Excel.',
    issuerAcronym: 'CNSS',
    issuerWebsite: 'https://cnss.gob.do',
    category: 'Salud',
    copiedFrom: `${ARS} (commit f12b0385904)`,
  },
  {
    path: 'spreadsheets/cnss-recaudos-sfs-2003-2023.ods',
    title: 'Recaudos del Seguro Familiar de Salud, 2003-2023 (ODS)',
    description: 'Recaudación del Seguro Familiar de Salud del Sistema Dominicano de Seguridad Social, serie 2003-2023, en hoja de cálculo OpenDocument.',
    issuerAcronym: 'CNSS',
    issuerWebsite: 'https://cnss.gob.do',
    category: 'Salud',
    copiedFrom: `${ARS} (commit f12b0385904)`,
  },
  {
    path: 'spreadsheets/one-primas-netas-seguros-2015-2023.xlsx',
    title: 'Primas netas cobradas por las aseguradoras, 2015-2023',
    description: 'Cuadros de la Oficina Nacional de Estadística sobre las primas netas cobradas por el sector asegurador, por ramo y año, en nueve hojas.',
    issuerAcronym: 'ONE',
    issuerWebsite: 'https://one.gob.do',
    category: 'Economía',
    copiedFrom: `${ARS} (commit f12b0385904)`,
  },
  {
    path: 'spreadsheets/one-companias-aseguradoras-1995-2022.xls',
    title: 'Compañías aseguradoras en operación, 1995-2022',
    description: 'Serie de la Oficina Nacional de Estadística con las compañías de seguros que operan en el país, de 1995 a 2022, en formato Excel 97.',
    issuerAcronym: 'ONE',
    issuerWebsite: 'https://one.gob.do',
    category: 'Economía',
    copiedFrom: `${ARS} (commit f12b0385904)`,
  },
  {
    path: 'pdf/sisalril-pespj-d1.pdf',
    title: 'Informe estadístico de la Superintendencia de Salud y Riesgos Laborales',
    description: 'Informe estadístico de siete páginas de la SISALRIL sobre el Seguro Familiar de Salud y sus prestadoras, con tablas y texto.',
    issuerAcronym: 'SISALRIL',
    issuerWebsite: 'https://sisalril.gob.do',
    category: 'Salud',
    copiedFrom: `${ARS} (commit e2776c968eb)`,
  },
  {
    path: 'pdf/prodominicana-estructura-organica-2023.pdf',
    title: 'Estructura orgánica de ProDominicana, 2023',
    description: 'Organigrama del Centro de Exportación e Inversión de la República Dominicana (ProDominicana) vigente en 2023.',
    issuerAcronym: 'PRODOMINICANA',
    issuerWebsite: 'https://prodominicana.gob.do',
    category: 'Gestión Pública',
    copiedFrom: 'github.com/Prodominicana-dev/Institucional (commit a7e3e284da5)',
  },
];
