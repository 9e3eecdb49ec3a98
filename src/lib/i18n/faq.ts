/**
 * The FAQ (issue #9, /general/faq), in Spanish. Long prose rather than interface labels, so it
 * lives beside `es.ts` instead of in it; another locale would add its own list.
 */
export interface FaqEntry {
  id: string;
  question: string;
  /** Paragraphs of plain text. */
  answer: string[];
}

export const FAQ: FaqEntry[] = [
  {
    id: 'que-es',
    question: '¿Qué es Archivo Abierto?',
    answer: [
      'Un archivo público y gratuito de documentos del Estado dominicano: conjuntos de datos, informes, presupuestos y estadísticas en PDF, CSV, Excel, ODS y otros formatos, agrupados por la fuente donde se publicaron, por el ministerio o la institución que los emitió y por categoría.',
      'Los portales oficiales cambian, se rediseñan o retiran archivos. Aquí cada documento queda guardado con un identificador de contenido que permite comprobar, años después, que es exactamente el mismo que se publicó.',
    ],
  },
  {
    id: 'cid',
    question: '¿Qué es un CID?',
    answer: [
      'Un CID (identificador de contenido de IPFS) es una huella que se calcula a partir de los bytes del archivo: si cambia un solo byte, cambia el CID. Por eso el CID nombra al archivo por lo que contiene y no por dónde está guardado.',
      'El archivo calcula los CID exactamente como lo hace la orden «ipfs add --cid-version=1» de IPFS (bloques de 256 KiB, hojas crudas, sha2-256), de modo que cualquiera puede obtener el mismo CID con herramientas estándar.',
    ],
  },
  {
    id: 'verificar',
    question: '¿Cómo compruebo que un archivo no fue alterado?',
    answer: [
      'En la página de cada registro, el botón «Verificar» hace que su navegador descargue el archivo y calcule el CID por su cuenta; le dice si coincide con el que muestra el registro. No tiene que confiar en nosotros.',
      'También puede descargar el archivo y calcular su CID con IPFS, o pedir los bloques en formato CAR (añadiendo ?format=car a la dirección /ipfs/…) y verificarlos con cualquier herramienta de IPFS. Cada registro publica además el SHA-256 del archivo en el catálogo DCAT.',
    ],
  },
  {
    id: 'contribuir',
    question: '¿Cómo contribuyo un documento?',
    answer: [
      'Inicie sesión con una cartera del navegador (por ejemplo MetaMask) y pulse «Subir Archivo» en el panel. El asistente le pide el título, el tipo, la categoría y una descripción; la dirección donde el documento está publicado y la fuente; la institución que lo emitió; el archivo; y una captura de pantalla de la página de origen, como prueba.',
      'Al enviar, su cartera firma un mensaje que contiene la huella SHA-256 del documento y de la captura: así queda probado quién lo aportó y que los archivos no cambiaron por el camino. Firmar no cuesta nada ni envía ninguna transacción.',
    ],
  },
  {
    id: 'estados',
    question: '¿Qué significan los estados de un registro?',
    answer: [
      '«under review»: el registro espera la revisión de un moderador (así empiezan todas las contribuciones). «online»: un moderador comprobó la prueba y la fuente, y el registro está publicado. «blocked»: un moderador lo bloqueó, con un motivo público; el registro se conserva, pero su archivo no se ofrece. «broken»: el archivo o su origen tienen un problema, explicado en el historial.',
      'Los registros cosechados de un catálogo público no pasan por esa revisión: su prueba es el propio catálogo. Quedan «under review» mientras el archivo no tenga su documento, y pasan a «online» cuando lo captura desde la dirección que da el catálogo y comprueba que es un documento (no una página web ni un archivo vacío); el historial dice entonces «el archivo» en lugar de una cartera. Los que el catálogo describe sin dirección de descarga siguen «under review», como descripción sin documento.',
      'Cada cambio de estado queda en el historial público del registro, con la fecha, quién lo hizo (la cartera del moderador, o el archivo) y el motivo.',
    ],
  },
  {
    id: 'legal',
    question: '¿En qué se basa legalmente el archivo?',
    answer: [
      'La Ley General 200-04 de Libre Acceso a la Información Pública de la República Dominicana reconoce a toda persona el derecho a solicitar y recibir información de los organismos del Estado, y obliga a estos a publicarla. Los documentos aquí archivados son información pública que las instituciones ya difundieron.',
      'Si un documento contiene datos personales o no debió publicarse, escríbanos: un moderador puede bloquearlo, y el motivo queda a la vista de todos.',
    ],
  },
  {
    id: 'api',
    question: '¿Puedo usar los datos desde mis programas?',
    answer: [
      'Sí, sin registrarse: hay una API REST y una API GraphQL descritas en la documentación (/docs, con su documento OpenAPI), un catálogo DCAT-AP que otros portales pueden recolectar, y las exportaciones del catálogo en CSV y JSON.',
    ],
  },
];
