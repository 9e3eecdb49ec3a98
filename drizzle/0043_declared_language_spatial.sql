-- The languages of a harvested record's data and the areas it covers, as its catalogue declares
-- them (`dct:language`, `dct:spatial`; CKAN's `language`, `spatial_uri`, `spatial_text`; data.json's
-- `language`, `spatial`). The archive's DCAT stated Spanish and the Dominican Republic of every
-- dataset, a harvested Chilean one too; it now states a harvested dataset's only as declared.
ALTER TABLE alexandrias ADD COLUMN IF NOT EXISTS languages text[] NOT NULL DEFAULT '{}'::text[];--> statement-breakpoint
ALTER TABLE alexandrias ADD COLUMN IF NOT EXISTS spatial text[] NOT NULL DEFAULT '{}'::text[];--> statement-breakpoint
-- The seed's catalogue, the export of datos.gob.do, is Dominican and in Spanish: its records say so,
-- as a seed run from this version on declares it.
UPDATE alexandrias a
   SET languages = ARRAY['http://publications.europa.eu/resource/authority/language/SPA'],
       spatial = ARRAY['http://publications.europa.eu/resource/authority/country/DOM']
  FROM harvested_records h JOIN harvest_sources s ON s.id = h.harvest_source_id
 WHERE h.alexandria_id = a.id AND s.snapshot_on IS NOT NULL AND s.url LIKE 'https://datos.gob.do/%'
   AND a.languages = '{}' AND a.spatial = '{}';
