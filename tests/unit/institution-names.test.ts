import { describe, expect, it } from 'vitest';
import { ofInstitution, withArticle } from '../../src/lib/domain/institution-names.ts';

describe('institution names in a Spanish sentence', () => {
  it.each([
    ['Ministerio de Turismo', 'el Ministerio de Turismo', 'del Ministerio de Turismo'],
    ['Oficina Nacional de Estadística (ONE)', 'la Oficina Nacional de Estadística (ONE)', 'de la Oficina Nacional de Estadística (ONE)'],
    ['Dirección General de Presupuesto', 'la Dirección General de Presupuesto', 'de la Dirección General de Presupuesto'],
    ['Superintendencia de Bancos', 'la Superintendencia de Bancos', 'de la Superintendencia de Bancos'],
    ['Universidad Autónoma de Santo Domingo', 'la Universidad Autónoma de Santo Domingo', 'de la Universidad Autónoma de Santo Domingo'],
    ['Tesorería Nacional', 'la Tesorería Nacional', 'de la Tesorería Nacional'],
    ['Instituto Dominicano de Aviación Civil', 'el Instituto Dominicano de Aviación Civil', 'del Instituto Dominicano de Aviación Civil'],
    ['Sistema Único de Beneficiarios', 'el Sistema Único de Beneficiarios', 'del Sistema Único de Beneficiarios'],
    ['Programa de Medicamentos Esenciales', 'el Programa de Medicamentos Esenciales', 'del Programa de Medicamentos Esenciales'],
    ['Comité Olímpico Dominicano', 'el Comité Olímpico Dominicano', 'del Comité Olímpico Dominicano'],
    ['Comedores Económicos del Estado', 'los Comedores Económicos del Estado', 'de los Comedores Económicos del Estado'],
    ['Empresas Públicas', 'las Empresas Públicas', 'de las Empresas Públicas'],
    ['UNIVERSIDAD ISA', 'la UNIVERSIDAD ISA', 'de la UNIVERSIDAD ISA'],
    ['DIRECCIÓN GENERAL DE ADUANAS', 'la DIRECCIÓN GENERAL DE ADUANAS', 'de la DIRECCIÓN GENERAL DE ADUANAS'],
  ])('%s', (name, subject, of) => {
    expect(withArticle(name)).toBe(subject);
    expect(ofInstitution(name)).toBe(of);
  });

  it('puts none before an acronym or an article the name already has', () => {
    expect(ofInstitution('INDOTEL')).toBe('de INDOTEL');
    expect(withArticle('SISALRIL')).toBe('SISALRIL');
    expect(ofInstitution('La Voz del Pueblo')).toBe('de La Voz del Pueblo');
    expect(withArticle('  Ministerio de Salud  ')).toBe('el Ministerio de Salud');
  });

  it.each([
    ['OFICINA NACIONAL DE ESTADÍSTICA', 'de la OFICINA NACIONAL DE ESTADÍSTICA'],
    ['BANCO CENTRAL', 'del BANCO CENTRAL'],
    ['Corte Interamericana de Derechos Humanos', 'de la Corte Interamericana de Derechos Humanos'],
    ['Red Nacional de Bibliotecas', 'de la Red Nacional de Bibliotecas'],
    ['Cruz Roja Dominicana', 'de la Cruz Roja Dominicana'],
    ['Área Metropolitana', 'del Área Metropolitana'],
    ['Mercados Dominicanos de Abasto Agropecuario', 'de los Mercados Dominicanos de Abasto Agropecuario'],
    ['Centros Tecnológicos Comunitarios', 'de los Centros Tecnológicos Comunitarios'],
    ['Redes de Salud', 'de las Redes de Salud'],
    ['Programas Sociales del Estado', 'de los Programas Sociales del Estado'],
  ])('%s', (name, of) => {
    expect(ofInstitution(name)).toBe(of);
  });

  it('writes an acronym with the article of the name it stands for', () => {
    expect(ofInstitution('Oficina Nacional de Estadística', 'ONE')).toBe('de la ONE');
    expect(ofInstitution('Ministerio de Turismo', 'MITUR')).toBe('del MITUR');
    expect(withArticle('Tesorería de la Seguridad Social', 'TSS')).toBe('la TSS');
    expect(ofInstitution('INDOTEL', '')).toBe('de INDOTEL');
    // A plural body's acronym, and a brand too long for an acronym, go bare.
    expect(ofInstitution('Mercados Dominicanos de Abasto Agropecuario', 'MERCADOM')).toBe('de MERCADOM');
    expect(ofInstitution('Centro de Exportación e Inversión de la República Dominicana', 'PRODOMINICANA')).toBe('de PRODOMINICANA');
  });
});
