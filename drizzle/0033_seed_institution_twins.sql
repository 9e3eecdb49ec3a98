-- Eight bodies of the official list of public bodies are institutions the portal publishes under a
-- shorter name: the seed made each an institution of its own, empty, beside the one with the
-- records (seed/catalog.ts's ALIASES now joins them). A database seeded before that keeps the
-- twins: each is removed when it holds no record and no moderator reviewed it, and its legal
-- description (category, branch, sector) goes to the institution kept where that has none.
-- Names as the seed wrote them, from the fixtures' lists; a twin renamed since is left alone.
WITH pairs (twin, kept) AS (
  VALUES
    ('Dirección General de Proyectos Estratégicos y Especiales de la Presidencia', 'Dirección General de Proyectos Estratégicos y Especiales (PROPEEP)'),
    ('Instituto de Educación Superior en Formación Diplomática y Consular “Dr. Eduardo Latorre Rodríguez”', 'Instituto de Educación Superior en Formación Diplomática y Consular (INESDYC)'),
    ('Jardín Botánico Nacional "Dr. Rafael M. Moscoso"', 'Jardín Botánico Nacional (JBN)'),
    ('Parque Zoológico Nacional Arq. Manuel Valverde Podesta', 'Parque Zoológico Nacional'),
    ('Dirección Ejecutiva del Sistema Nacional de Atención a Emergencias y Seguridad 9-1-1', 'Sistema Nacional de Atención a Emergencias y Seguridad 911'),
    ('Instituto de Auxilios', 'Instituto de Auxilio y Viviendas (INAVI)'),
    ('Gabinete de Coordinación de Política Social', 'Gabinete de Políticas Sociales (GPS)'),
    ('Comisión de Fomento a la Tecnificación del Sistema Nacional de Riego', 'Tecnificación Nacional de Riego')
),
matched AS (
  SELECT twin.id AS twin_id, kept.id AS kept_id, twin.desciption, twin.legal_category, twin.branch, twin.sector
    FROM pairs
    JOIN departments twin ON twin.name = pairs.twin
    JOIN departments kept ON kept.name = pairs.kept
   WHERE NOT EXISTS (SELECT 1 FROM alexandrias WHERE alexandrias.department_id = twin.id)
     AND NOT EXISTS (SELECT 1 FROM department_reviews WHERE department_reviews.department_id = twin.id)
),
described AS (
  UPDATE departments kept
     SET desciption = coalesce(kept.desciption, matched.desciption),
         legal_category = coalesce(kept.legal_category, matched.legal_category),
         branch = coalesce(kept.branch, matched.branch),
         sector = coalesce(kept.sector, matched.sector)
    FROM matched
   WHERE kept.id = matched.kept_id
)
DELETE FROM departments USING matched WHERE departments.id = matched.twin_id;
