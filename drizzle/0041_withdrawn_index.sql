-- /desaparecidos lists the records their catalogue withdrew beside those whose address is gone,
-- newest first: like `gone_since`, a few records among many hold a date, found by a partial index.
CREATE INDEX IF NOT EXISTS harvested_records_withdrawn_idx ON harvested_records (withdrawn_at) WHERE withdrawn_at IS NOT NULL;
