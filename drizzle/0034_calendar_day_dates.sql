-- A date a DCAT or data.json catalogue gave as a calendar day (`2021-01-01`) was kept at midnight
-- UTC, which is the evening before in Santo Domingo: «1 de enero de 2021» showed as 31/12/2020
-- and was cited as (2020). Harvests now keep such a day at noon UTC (domain/calendar-day.ts), and
-- the records harvested before are moved there, so that the next run finds their dates unchanged.
-- Only records of those two kinds of catalogue, and only dates at midnight UTC to the microsecond:
-- CKAN writes instants, with their time. A DCAT or data.json catalogue that gave an instant at
-- exactly midnight UTC (rare) has it moved too: its next harvest moves it back, and says so once in
-- the record's history («fechas de publicación cambiadas»).
UPDATE alexandrias a
   SET issued = CASE WHEN a.issued = date_trunc('day', a.issued AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' THEN a.issued + interval '12 hours' ELSE a.issued END,
       modified = CASE WHEN a.modified = date_trunc('day', a.modified AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' THEN a.modified + interval '12 hours' ELSE a.modified END
  FROM harvested_records hr
  JOIN harvest_sources hs ON hs.id = hr.harvest_source_id
 WHERE hr.alexandria_id = a.id
   AND hs.kind IN ('dcat', 'datajson')
   AND (a.issued = date_trunc('day', a.issued AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
        OR a.modified = date_trunc('day', a.modified AT TIME ZONE 'UTC') AT TIME ZONE 'UTC');
