-- The institution and category a harvest last gave each record, from its catalogue's publisher and
-- themes and the source's mapping. A later run compares with them: when the catalogue or a
-- moderator's mapping gives another one, a record still holding the one the harvest gave follows
-- it, and a record a moderator moved by hand keeps theirs. Records harvested before this version
-- are taken to hold what their harvest gave them.
ALTER TABLE harvested_records ADD COLUMN IF NOT EXISTS mapped_department_id integer REFERENCES departments(id) ON DELETE SET NULL;--> statement-breakpoint
ALTER TABLE harvested_records ADD COLUMN IF NOT EXISTS mapped_category_id integer REFERENCES categories(id) ON DELETE SET NULL;--> statement-breakpoint
UPDATE harvested_records h SET mapped_department_id = a.department_id, mapped_category_id = a.category_id
  FROM alexandrias a WHERE a.id = h.alexandria_id;
