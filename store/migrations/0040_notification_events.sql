-- Notification delivery (decision 89): the events the notification engine
-- consumes, and where a send's group is kept.

-- The playbook consumer and the incident rules engine delete the events they
-- take, so the notification engine has its own copy of each event a live
-- notification lists, named `notification.<event>` (no listing rule, no
-- cost). A playbook consumer's retry row (properties.playbook_id) and the
-- other consumers' copies are not copied again.
CREATE FUNCTION quarterdeck_copy_notification_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- The copies' own insert fires this again: it must insert nothing then,
    -- not even an empty statement (that would fire it once more).
    IF NOT EXISTS (SELECT 1 FROM new_rows n
                   WHERE n.name NOT LIKE 'notification.%' AND n.name NOT LIKE 'incident\_rule.%'
                     AND NOT coalesce(n.properties ? 'playbook_id', false)
                     AND EXISTS (SELECT 1 FROM notifications r
                                 WHERE r.deleted_at IS NULL AND n.name = ANY (r.events))) THEN
        RETURN NULL;
    END IF;
    INSERT INTO event_queue (name, properties, created_at)
    SELECT 'notification.' || n.name, n.properties, n.created_at
    FROM new_rows n
    WHERE n.name NOT LIKE 'notification.%' AND n.name NOT LIKE 'incident\_rule.%'
      AND NOT coalesce(n.properties ? 'playbook_id', false)
      AND EXISTS (SELECT 1 FROM notifications r WHERE r.deleted_at IS NULL AND n.name = ANY (r.events));
    RETURN NULL;
END $$;

CREATE TRIGGER event_queue_copy_notification_events AFTER INSERT ON event_queue
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION quarterdeck_copy_notification_events();

-- Incident and playbook run events are consumed by notifications only, so
-- they are raised straight as the notification engine's copies, and only
-- while a live notification lists them (nothing else would delete them).
CREATE FUNCTION quarterdeck_raise_notification_event(event text, props jsonb) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO event_queue (name, properties)
    SELECT 'notification.' || event, props
    WHERE EXISTS (SELECT 1 FROM notifications r WHERE r.deleted_at IS NULL AND event = ANY (r.events));
$$;

-- incident.created; incident.status.<status> when the status changes.
CREATE FUNCTION quarterdeck_raise_incident_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM quarterdeck_raise_notification_event('incident.created',
            jsonb_build_object('id', NEW.id, 'status', NEW.status));
    ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
        PERFORM quarterdeck_raise_notification_event('incident.status.' || NEW.status,
            jsonb_build_object('id', NEW.id, 'status', NEW.status, 'previous_status', OLD.status));
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER incidents_raise_notification_events AFTER INSERT OR UPDATE OF status ON incidents
    FOR EACH ROW EXECUTE FUNCTION quarterdeck_raise_incident_events();

-- playbook.run.<status> when a run ends (completed, failed, cancelled, timed_out)
-- or waits for approval (pending_approval).
CREATE FUNCTION quarterdeck_raise_playbook_run_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status IS DISTINCT FROM OLD.status
       AND NEW.status IN ('completed', 'failed', 'cancelled', 'timed_out', 'pending_approval') THEN
        PERFORM quarterdeck_raise_notification_event('playbook.run.' || NEW.status,
            jsonb_build_object('id', NEW.id, 'playbook_id', NEW.playbook_id, 'status', NEW.status));
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER playbook_runs_raise_notification_events AFTER UPDATE OF status ON playbook_runs
    FOR EACH ROW EXECUTE FUNCTION quarterdeck_raise_playbook_run_events();

-- The group a send belongs to (groupBy), and the delivery worker's claim.
ALTER TABLE notification_send_history ADD COLUMN group_key text;
CREATE INDEX notification_send_history_group_idx
    ON notification_send_history (notification_id, group_key, created_at DESC) WHERE group_key IS NOT NULL;
CREATE INDEX notification_send_history_repeat_idx
    ON notification_send_history (notification_id, resource_id, source_event, created_at DESC);
