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
           || jsonb_build_array(jsonb_build_object('key', 'run', 'message', 'Cosecha interrumpida, sin más intentos. ' || coalesce(NEW.last_error, 'Su trabajo falló.'))),
         updated_at = now()
   WHERE job_id = NEW.id AND status = 'in_progress';
  RETURN NULL;
END $$;--> statement-breakpoint
DROP TRIGGER IF EXISTS jobs_harvest_failed ON jobs;--> statement-breakpoint
CREATE TRIGGER jobs_harvest_failed AFTER UPDATE OF status ON jobs
  FOR EACH ROW WHEN (NEW.status = 'failed' AND OLD.status IS DISTINCT FROM 'failed' AND NEW.kind = 'harvest')
  EXECUTE FUNCTION harvest_job_failed();
--> statement-breakpoint
-- Runs an earlier version left open so: closed now, with the reason their job gave. Guarded, and
-- run as dynamic SQL: on a new database every migration runs in one transaction, where the
-- import status 'failed' (added by 0020) may not be written yet, and there is nothing to close.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM imports i JOIN jobs j ON j.id = i.job_id
              WHERE j.kind = 'harvest' AND j.status::text = 'failed' AND i.status::text = 'in_progress') THEN
    EXECUTE $update$
      UPDATE imports i
         SET status = 'failed',
             errors = coalesce(i.errors, '[]'::jsonb)
               || jsonb_build_array(jsonb_build_object('key', 'run', 'message', 'Cosecha interrumpida, sin más intentos. ' || coalesce(j.last_error, 'Su trabajo falló.'))),
             updated_at = now()
        FROM jobs j
       WHERE j.id = i.job_id AND j.kind = 'harvest' AND j.status = 'failed' AND i.status = 'in_progress'
    $update$;
  END IF;
END $$;
