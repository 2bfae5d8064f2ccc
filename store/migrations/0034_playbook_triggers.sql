-- Playbook triggers (decision 81): the events the engines raise into
-- event_queue, and the slots of playbooks' `on.schedule` triggers.
--
-- Events are raised by statement-level triggers with transition tables, so
-- every writer (the check, scrape and topology engines' batches, a console
-- edit) raises them in its own transaction with one INSERT ... SELECT per
-- statement, whatever the number of rows.

-- Retention deletes by age.
CREATE INDEX event_queue_created_at_idx ON event_queue (created_at);

-- check.passed | check.failed: a live check's status changed (its first result included).
CREATE FUNCTION quarterdeck_raise_check_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_queue (name, properties)
    SELECT CASE WHEN n.status = 'healthy' THEN 'check.passed' ELSE 'check.failed' END,
           jsonb_build_object('id', n.id, 'canary_id', n.canary_id, 'status', n.status,
                              'previous_status', o.status, 'last_runtime', n.last_runtime)
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE n.deleted_at IS NULL AND n.status IS NOT NULL AND n.status IS DISTINCT FROM o.status;
    RETURN NULL;
END $$;

CREATE TRIGGER checks_raise_events AFTER UPDATE ON checks
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION quarterdeck_raise_check_events();

-- config.created and the first config.<health> of a new live item.
CREATE FUNCTION quarterdeck_raise_config_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_queue (name, properties)
    SELECT e.name, jsonb_build_object('id', n.id, 'type', n.type, 'name', n.name) || e.extra
    FROM new_rows n
    CROSS JOIN LATERAL (VALUES
        ('config.created', '{}'::jsonb),
        ('config.' || n.health, jsonb_build_object('health', n.health))) AS e(name, extra)
    WHERE n.deleted_at IS NULL AND e.name IS NOT NULL;
    RETURN NULL;
END $$;

CREATE TRIGGER config_items_raise_created AFTER INSERT ON config_items
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION quarterdeck_raise_config_created();

-- config.updated (the stored config changed), config.deleted (soft-deleted),
-- config.<health> (the health changed).
CREATE FUNCTION quarterdeck_raise_config_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_queue (name, properties)
    SELECT e.name, jsonb_build_object('id', n.id, 'type', n.type, 'name', n.name) || e.extra
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    CROSS JOIN LATERAL (VALUES
        (CASE WHEN o.deleted_at IS NULL AND n.deleted_at IS NOT NULL THEN 'config.deleted' END,
         jsonb_build_object('delete_reason', n.delete_reason)),
        (CASE WHEN n.deleted_at IS NULL AND n.config IS DISTINCT FROM o.config THEN 'config.updated' END,
         '{}'::jsonb),
        (CASE WHEN n.deleted_at IS NULL AND n.health IS DISTINCT FROM o.health THEN 'config.' || n.health END,
         jsonb_build_object('health', n.health, 'previous_health', o.health))) AS e(name, extra)
    WHERE e.name IS NOT NULL;
    RETURN NULL;
END $$;

CREATE TRIGGER config_items_raise_updated AFTER UPDATE ON config_items
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION quarterdeck_raise_config_updated();

-- config.changed: a change row recorded for an item.
CREATE FUNCTION quarterdeck_raise_config_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_queue (name, properties)
    SELECT 'config.changed',
           jsonb_build_object('id', n.config_id, 'change_id', n.id, 'change_type', n.change_type,
                              'severity', n.severity, 'summary', n.summary)
    FROM new_rows n;
    RETURN NULL;
END $$;

CREATE TRIGGER config_changes_raise_changed AFTER INSERT ON config_changes
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION quarterdeck_raise_config_changed();

-- component.<health>: a live component's health changed (a new one's first health included).
CREATE FUNCTION quarterdeck_raise_component_health() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO event_queue (name, properties)
        SELECT 'component.' || n.health,
               jsonb_build_object('id', n.id, 'name', n.name, 'topology_id', n.topology_id,
                                  'health', n.health)
        FROM new_rows n
        WHERE n.deleted_at IS NULL AND n.health IS NOT NULL;
    ELSE
        INSERT INTO event_queue (name, properties)
        SELECT 'component.' || n.health,
               jsonb_build_object('id', n.id, 'name', n.name, 'topology_id', n.topology_id,
                                  'health', n.health, 'previous_health', o.health)
        FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE n.deleted_at IS NULL AND n.health IS NOT NULL AND n.health IS DISTINCT FROM o.health;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER components_raise_inserted AFTER INSERT ON components
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION quarterdeck_raise_component_health();

CREATE TRIGGER components_raise_updated AFTER UPDATE ON components
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION quarterdeck_raise_component_health();

-- One row per `on.schedule[]` entry of a live playbook. next_run: the slot the
-- entry fires at next (NULL: not planned yet; 'infinity' with error: the
-- schedule does not parse). An engine claims due rows FOR UPDATE SKIP LOCKED
-- and creates the run and moves next_run in one transaction, so each slot
-- fires once across replicas.
CREATE TABLE playbook_schedules (
    playbook_id uuid        NOT NULL REFERENCES playbooks (id) ON DELETE CASCADE,
    position    integer     NOT NULL,
    schedule    text        NOT NULL,
    parameters  jsonb,
    next_run    timestamptz,
    last_run    timestamptz,
    error       text,
    PRIMARY KEY (playbook_id, position)
);

CREATE INDEX playbook_schedules_next_run_idx ON playbook_schedules (next_run NULLS FIRST);

-- A playbook's schedule triggers follow its spec: a change of `on.schedule`,
-- a deletion or a revival replaces its rows (so an edit reschedules).
CREATE FUNCTION quarterdeck_sync_playbook_schedules() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE'
       AND OLD.spec -> 'on' -> 'schedule' IS NOT DISTINCT FROM NEW.spec -> 'on' -> 'schedule'
       AND (OLD.deleted_at IS NULL) = (NEW.deleted_at IS NULL) THEN
        RETURN NULL;
    END IF;
    DELETE FROM playbook_schedules WHERE playbook_id = NEW.id;
    IF NEW.deleted_at IS NULL AND jsonb_typeof(NEW.spec -> 'on' -> 'schedule') = 'array' THEN
        INSERT INTO playbook_schedules (playbook_id, position, schedule, parameters)
        SELECT NEW.id, s.i - 1, coalesce(s.v ->> 'schedule', ''), s.v -> 'parameters'
        FROM jsonb_array_elements(NEW.spec -> 'on' -> 'schedule') WITH ORDINALITY AS s(v, i);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER playbooks_sync_schedules AFTER INSERT OR UPDATE OF spec, deleted_at ON playbooks
    FOR EACH ROW EXECUTE FUNCTION quarterdeck_sync_playbook_schedules();

INSERT INTO playbook_schedules (playbook_id, position, schedule, parameters)
SELECT p.id, s.i - 1, coalesce(s.v ->> 'schedule', ''), s.v -> 'parameters'
FROM playbooks p
CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(p.spec -> 'on' -> 'schedule') = 'array'
                                             THEN p.spec -> 'on' -> 'schedule' ELSE '[]' END)
     WITH ORDINALITY AS s(v, i)
WHERE p.deleted_at IS NULL;
