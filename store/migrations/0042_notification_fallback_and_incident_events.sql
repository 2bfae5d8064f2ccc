-- Notification delivery (decision 92): fallback sends, and the incident
-- events 0040 did not raise yet.

-- A send's fallback is its own row, `parent_id` the failed send; one per send.
CREATE UNIQUE INDEX notification_send_history_fallback_key
    ON notification_send_history (parent_id) WHERE parent_id IS NOT NULL;

-- Queues the fallback of a send that failed (its attempts spent, a recipient
-- that cannot work, or its playbook run failed): a pending copy due the
-- rule's fallback_delay from now, when the rule (not deleted) has a fallback
-- recipient and the send is no fallback itself. Once per send. The delivery
-- worker calls it for a send it records failed; the trigger below for runs.
CREATE FUNCTION quarterdeck_queue_notification_fallback(failed uuid) RETURNS uuid
LANGUAGE sql AS $$
    INSERT INTO notification_send_history (notification_id, status, source_event, resource_id,
        resource_health, resource_status, parent_id, body, body_payload, not_before, count,
        first_observed)
    SELECT h.notification_id, 'pending', h.source_event, h.resource_id, h.resource_health,
           h.resource_status, h.id, h.body,
           coalesce(h.body_payload, '{}') || '{"fallback": true, "wait_for": false}',
           clock_timestamp() + make_interval(secs => coalesce(n.fallback_delay, 0) / 1e9),
           h.count, h.first_observed
    FROM notification_send_history h
    JOIN notifications n ON n.id = h.notification_id
    WHERE h.id = failed AND h.parent_id IS NULL AND n.deleted_at IS NULL
      AND (n.fallback_person_id IS NOT NULL OR n.fallback_team_id IS NOT NULL
           OR n.fallback_playbook_id IS NOT NULL
           OR jsonb_typeof(n.fallback_custom_services) = 'array'
              AND jsonb_array_length(n.fallback_custom_services) > 0)
    ON CONFLICT (parent_id) WHERE parent_id IS NOT NULL DO NOTHING
    RETURNING id;
$$;

-- A playbook a send started whose run fails (or times out) falls back too.
-- The run is linked to its send after it starts, so the link's write counts
-- as well as the status's.
CREATE FUNCTION quarterdeck_fallback_for_failed_run() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM quarterdeck_queue_notification_fallback(NEW.notification_send_id);
    RETURN NULL;
END $$;

CREATE TRIGGER playbook_runs_notification_fallback
    AFTER UPDATE OF status, notification_send_id ON playbook_runs
    FOR EACH ROW
    WHEN (NEW.notification_send_id IS NOT NULL AND NEW.status IN ('failed', 'timed_out')
          AND (OLD.status IS DISTINCT FROM NEW.status
               OR OLD.notification_send_id IS DISTINCT FROM NEW.notification_send_id))
    EXECUTE FUNCTION quarterdeck_fallback_for_failed_run();

-- incident.responder.added and incident.comment.added, raised (as 0040's
-- incident events) only while a live notification lists them; `id` is the
-- incident's, the new row's id under responder_id or comment_id.
CREATE FUNCTION quarterdeck_raise_incident_child_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'responders' THEN
        PERFORM quarterdeck_raise_notification_event('incident.responder.added',
            jsonb_build_object('id', NEW.incident_id, 'responder_id', NEW.id));
    ELSE
        PERFORM quarterdeck_raise_notification_event('incident.comment.added',
            jsonb_build_object('id', NEW.incident_id, 'comment_id', NEW.id));
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER responders_raise_notification_events AFTER INSERT ON responders
    FOR EACH ROW EXECUTE FUNCTION quarterdeck_raise_incident_child_events();
CREATE TRIGGER comments_raise_notification_events AFTER INSERT ON comments
    FOR EACH ROW EXECUTE FUNCTION quarterdeck_raise_incident_child_events();

-- The definition of done: incident.dod.evidence.added when an evidence
-- becomes part of it (inserted or marked so); incident.dod.passed when one is
-- done and with it all of its incident's are; incident.dod.regressed when a
-- done one is undone.
CREATE FUNCTION quarterdeck_raise_dod_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    incident uuid;
    props jsonb;
BEGIN
    IF NOT NEW.definition_of_done THEN
        RETURN NULL;
    END IF;
    SELECT h.incident_id INTO incident FROM hypotheses h WHERE h.id = NEW.hypothesis_id;
    props := jsonb_build_object('id', incident, 'evidence_id', NEW.id, 'done', NEW.done);
    IF TG_OP = 'INSERT' OR NOT OLD.definition_of_done THEN
        PERFORM quarterdeck_raise_notification_event('incident.dod.evidence.added', props);
    ELSIF NEW.done AND NOT OLD.done THEN
        IF NOT EXISTS (SELECT 1 FROM evidences e JOIN hypotheses h ON h.id = e.hypothesis_id
                       WHERE h.incident_id = incident AND e.definition_of_done AND NOT e.done) THEN
            PERFORM quarterdeck_raise_notification_event('incident.dod.passed', props);
        END IF;
    ELSIF OLD.done AND NOT NEW.done THEN
        PERFORM quarterdeck_raise_notification_event('incident.dod.regressed', props);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER evidences_raise_notification_events
    AFTER INSERT OR UPDATE OF definition_of_done, done ON evidences
    FOR EACH ROW EXECUTE FUNCTION quarterdeck_raise_dod_events();
