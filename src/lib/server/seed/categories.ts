/**
 * The eleven themes of datos.gob.do, with a short description of what each gathers and an icon
 * name the interface maps to a drawing. The titles are the portal's own.
 */
export interface SeedCategory {
  title: string;
  description: string;
  iconName: string;
}

export const SEED_CATEGORIES: readonly SeedCategory[] = [
  { title: 'Gestión Pública', iconName: 'building', description: 'Presupuesto, compras, nómina, servicios y funcionamiento de las instituciones del Estado.' },
  { title: 'Sociedad y bienestar', iconName: 'users', description: 'Población, empleo, seguridad social, asistencia, vivienda y calidad de vida.' },
  { title: 'Economía', iconName: 'chart', description: 'Producción, comercio, finanzas, turismo, precios y actividad de las empresas.' },
  { title: 'Salud', iconName: 'heart', description: 'Servicios de salud, seguros, epidemiología y riesgos laborales.' },
  { title: 'Educación', iconName: 'book', description: 'Centros, matrícula, docentes y resultados del sistema educativo.' },
  { title: 'Urbanismo', iconName: 'map', description: 'Construcción, ordenamiento territorial, transporte e infraestructura urbana.' },
  { title: 'Medio Ambiente', iconName: 'leaf', description: 'Recursos naturales, clima, áreas protegidas y gestión ambiental.' },
  { title: 'Ciencia y tecnología', iconName: 'cpu', description: 'Investigación, innovación, telecomunicaciones y gobierno digital.' },
  { title: 'Legislación', iconName: 'scale', description: 'Normas, resoluciones y actividad legislativa y judicial.' },
  { title: 'Electoral', iconName: 'ballot', description: 'Padrón, procesos y resultados electorales.' },
  { title: 'PIDA', iconName: 'globe', description: 'Datos de la iniciativa regional PIDA (Plataforma de Información y Datos Abiertos) que el portal agrupa aparte.' },
];
