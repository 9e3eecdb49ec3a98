-- A harvest run's import counts the documents it imported, new and updated records, as the
-- dashboard's timeline words it ("N documentos importados"); it counted every entry it read, so a
-- daily run that found nothing changed read as an import of the whole catalogue. Runs already
-- recorded are counted again the same way; what each one read stays in its harvest_counts.
UPDATE imports
   SET documents = coalesce((harvest_counts ->> 'new')::int, 0) + coalesce((harvest_counts ->> 'updated')::int, 0)
 WHERE type = 'harvest' AND harvest_counts IS NOT NULL;
