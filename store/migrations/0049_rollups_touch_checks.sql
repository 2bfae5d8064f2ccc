-- The health summary reuses a check's rendered row while the row versions
-- (xmin) of the check and its canary hold (decision 102.6), so a write to a
-- check's hourly rollups must change the check's row. The engine's own write
-- does (one statement records the results, the rollups and the checks'
-- status); any other (retention, a change by hand) updates the checks whose
-- rows this transaction has not updated yet.
CREATE FUNCTION quarterdeck_rollups_touch_checks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE checks c SET updated_at = now()
    WHERE c.id IN (SELECT check_id FROM changed_rollups)
      AND c.xmin <> pg_current_xact_id()::xid;
    RETURN NULL;
END $$;

-- A trigger with transition tables takes one event.
CREATE TRIGGER check_statuses_1h_inserted AFTER INSERT ON check_statuses_1h
    REFERENCING NEW TABLE AS changed_rollups
    FOR EACH STATEMENT EXECUTE FUNCTION quarterdeck_rollups_touch_checks();
CREATE TRIGGER check_statuses_1h_updated AFTER UPDATE ON check_statuses_1h
    REFERENCING NEW TABLE AS changed_rollups
    FOR EACH STATEMENT EXECUTE FUNCTION quarterdeck_rollups_touch_checks();
CREATE TRIGGER check_statuses_1h_deleted AFTER DELETE ON check_statuses_1h
    REFERENCING OLD TABLE AS changed_rollups
    FOR EACH STATEMENT EXECUTE FUNCTION quarterdeck_rollups_touch_checks();
