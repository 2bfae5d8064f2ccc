-- The playbook engine: runs and their actions claimed by operator replicas
-- through leases, cancel requests, and the channels that wake the engines.

-- claimed_by: the replica running it; lease_until: when another replica may
-- take it over (the first died). cancel_requested_at: a cancel the replica
-- running it has still to carry out.
ALTER TABLE playbook_runs
    ADD COLUMN claimed_by          text,
    ADD COLUMN lease_until         timestamptz,
    ADD COLUMN cancel_requested_at timestamptz;

-- action_index: the action's place in the run's spec. retry_count counts the
-- attempts after the first; a retry reuses the row.
ALTER TABLE playbook_run_actions
    ADD COLUMN action_index integer NOT NULL DEFAULT 0,
    ADD COLUMN claimed_by   text,
    ADD COLUMN lease_until  timestamptz;

CREATE UNIQUE INDEX playbook_run_actions_run_index_key ON playbook_run_actions (playbook_run_id, action_index);

-- Engines claim: WHERE status IN (...) AND scheduled_time <= now() AND lease expired ... FOR UPDATE SKIP LOCKED.
CREATE INDEX playbook_runs_claim_idx ON playbook_runs (scheduled_time)
    WHERE status IN ('scheduled', 'running', 'waiting');

-- A run that became due (created or approved) wakes the engines.
CREATE FUNCTION playbook_runs_notify_scheduled() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('quarterdeck_playbook_run', NEW.id::text);
    RETURN NULL;
END $$;

CREATE TRIGGER playbook_runs_notify_inserted AFTER INSERT ON playbook_runs
    FOR EACH ROW WHEN (NEW.status = 'scheduled') EXECUTE FUNCTION playbook_runs_notify_scheduled();

CREATE TRIGGER playbook_runs_notify_scheduled AFTER UPDATE OF status ON playbook_runs
    FOR EACH ROW WHEN (NEW.status = 'scheduled' AND OLD.status IS DISTINCT FROM 'scheduled')
    EXECUTE FUNCTION playbook_runs_notify_scheduled();

-- A cancel request reaches the replica running the run.
CREATE FUNCTION playbook_runs_notify_cancel() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('quarterdeck_playbook_cancel', NEW.id::text);
    RETURN NULL;
END $$;

CREATE TRIGGER playbook_runs_notify_cancel AFTER UPDATE OF cancel_requested_at ON playbook_runs
    FOR EACH ROW WHEN (NEW.cancel_requested_at IS NOT NULL AND OLD.cancel_requested_at IS NULL)
    EXECUTE FUNCTION playbook_runs_notify_cancel();
