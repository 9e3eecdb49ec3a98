/**
 * Every interface string, in Spanish (with the English labels the spec names), one dotted key
 * each, grouped by where it shows. Another locale is another file with the same keys.
 */
export const es = {
  'site.name': 'Archivo Abierto',
  'site.tagline': 'Archivo público de datos abiertos en español',
  'site.description':
    'Documentos públicos archivados y verificables: conjuntos de datos de ministerios e instituciones, con su origen y su identificador de contenido (CID).',

  'banner.beta': 'Archivo Abierto está en beta.',
  'banner.support': 'Apóyanos en {platform}',

  'nav.dashboard': 'Panel',
  'nav.skip': 'Saltar al contenido',

  'footer.chat': 'Comunidad',
  'footer.code': 'Código fuente',
  'footer.marketplace': 'API Marketplace',
  'footer.status': 'Estado del servicio',
  'footer.docs': 'Documentación',
  'footer.faq': 'Preguntas frecuentes',
  'footer.license': 'Datos públicos de la República Dominicana (Ley 200-04 de Libre Acceso a la Información Pública).',

  'status.under_review': 'under review',
  'status.on_line': 'online',
  'status.blocked': 'blocked',
  'status.broken': 'broken',

  'import.in_progress': 'importando {count} documento(s)',
  'import.done': '{count} documento(s) importado(s)',
  'import.type.harvest': 'Cosecha de catálogo',
  'import.type.single': 'Contribución',
  'import.type.bulk': 'Carga por lotes',
  'import.noSource': 'Varias fuentes',

  'group.src.title': 'Fuentes',
  'group.dep.title': 'Ministerios o instituciones',
  'group.cat.title': 'Categorias',
  'group.src.seeAll': 'Ver todas las Fuentes',
  'group.dep.seeAll': 'Ver todos los Ministerios',
  'group.cat.seeAll': 'Ver todas las Categorias',

  'dashboard.title': 'Panel',
  'dashboard.heading': 'El archivo en cifras',
  'dashboard.records': 'Registros',
  'dashboard.archived': 'Archivos con CID',
  'dashboard.departments': 'Ministerios o instituciones',
  'dashboard.sources': 'Fuentes',
  'dashboard.categories': 'Categorias',
  'dashboard.deposited': 'Archivos Depositados',
  'dashboard.processed': 'Procesados',
  'dashboard.unprocessedOf': '{unprocessed} sin procesar de {total}',
  'dashboard.imports': 'Últimas importaciones',
  'dashboard.noImports': 'Todavía no hay importaciones.',
  'dashboard.format.other': 'Otros',

  'error.title': 'Algo salió mal',
  'error.body': "There's an Error, please refresh this page ...",

  'notFound.title': 'Página no encontrada',
  'notFound.body': 'La dirección que buscas no existe en el archivo.',
  'notFound.back': 'Ir al panel',
} as const;

export type MessageKey = keyof typeof es;
