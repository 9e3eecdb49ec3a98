-- The attempts a job made before a moderator's «Reintentar», or before the daily second chance of a
-- remote pin, put it back in the queue: the retry gives it all its attempts again (and their short
-- backoff), and the capture queue still tells how often it was tried in all (attempts + these).
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS previous_attempts integer NOT NULL DEFAULT 0;
