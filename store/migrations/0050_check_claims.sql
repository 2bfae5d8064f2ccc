-- A claimed check holds its row for its run (decision 105.4): claimed_slot is
-- the slot the run is for (NULL: asked for by Run Now), lease_until when
-- another engine may take the run over because the one that claimed it died
-- or gave it back. Recording the run's result ends the hold. A check whose
-- hold is on is not claimed again, so one check never runs twice at once.
ALTER TABLE checks
    ADD COLUMN claimed_slot timestamptz,
    ADD COLUMN lease_until  timestamptz;

-- The slot a result was run for (NULL: Run Now, or a transform's result).
-- One result per slot: a run whose hold ended while it still ran (a
-- stalled engine) and the run that took it over both finish, and the
-- first result written counts.
ALTER TABLE check_statuses ADD COLUMN slot timestamptz;
CREATE UNIQUE INDEX check_statuses_slot_key ON check_statuses (check_id, slot) WHERE slot IS NOT NULL;

-- Claims and the engine's wake-up find the runs whose hold ended.
CREATE INDEX checks_lease_until_idx ON checks (lease_until) WHERE lease_until IS NOT NULL;
