-- A harvest run closes its own Import however it ends, but not when its process dies: the queue
-- takes the job back (`reclaimExpired`) and runs it again, and that run closes the dead one. When
-- the job has no attempt left (a catalogue that kills its process every time), no run comes after,
-- and the Import read «importando» on the dashboard until the source's next scheduled run. Closed
-- here, as failed with the queue's reason, whichever process or path fails the job; the WHEN keeps
-- every other update of a job (a capture's claim, heartbeat or completion) from calling anything.
CREATE OR REPLACE FUNCTION harvest_job_failed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE imports
     SET status = 'failed',
         errors = coalesce(errors, '[]'::jsonb)
           || jsonb_build_array(jsonb_build_object('key', 'run', 'message', 'Cosecha interrumpida: ' || coalesce(NEW.last_error, 'su trabajo falló.'))),
         updated_at = now()
   WHERE job_id = NEW.id AND status = 'in_progress';
  RETURN NULL;
END $$;--> statement-breakpoint
DROP TRIGGER IF EXISTS jobs_harvest_failed ON jobs;--> statement-breakpoint
CREATE TRIGGER jobs_harvest_failed AFTER UPDATE OF status ON jobs
  FOR EACH ROW WHEN (NEW.status = 'failed' AND OLD.status IS DISTINCT FROM 'failed' AND NEW.kind = 'harvest')
  EXECUTE FUNCTION harvest_job_failed();
