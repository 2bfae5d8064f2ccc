-- Incident rules (decision 87): the system person that opens incidents,
-- the events the rules engine consumes, and which rule opened which
-- incident for which resource (dedupe and recovery).

-- Incidents need a creator; a rule's are created by this machine identity
-- (no password: it never signs in; the reserved .invalid domain never delivers).
INSERT INTO people (id, name, email, type)
VALUES ('00000000-0000-0000-0000-000000000001', 'System', 'system@quarterdeck.invalid', 'agent')
ON CONFLICT (id) DO NOTHING;

-- The playbook consumer deletes the events it takes, so the rules engine has
-- its own copy of each health event, named `incident_rule.<event>`, raised
-- only while some live incident rule exists (no rule, no cost). A playbook
-- consumer's retry row (properties.playbook_id) is not copied again.
CREATE FUNCTION quarterdeck_copy_incident_rule_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- The copies' own insert fires this again: it must insert nothing then,
    -- not even an empty statement (that would fire it once more).
    IF NOT EXISTS (SELECT 1 FROM new_rows n WHERE n.name IN (
                       'check.failed', 'check.passed',
                       'component.healthy', 'component.unhealthy', 'component.warning', 'component.unknown',
                       'config.healthy', 'config.unhealthy', 'config.warning', 'config.unknown')
                   AND NOT coalesce(n.properties ? 'playbook_id', false))
       OR NOT EXISTS (SELECT 1 FROM incident_rules WHERE deleted_at IS NULL) THEN
        RETURN NULL;
    END IF;
    INSERT INTO event_queue (name, properties, created_at)
    SELECT 'incident_rule.' || n.name, n.properties, n.created_at
    FROM new_rows n
    WHERE n.name IN ('check.failed', 'check.passed',
                     'component.healthy', 'component.unhealthy', 'component.warning', 'component.unknown',
                     'config.healthy', 'config.unhealthy', 'config.warning', 'config.unknown')
      AND NOT coalesce(n.properties ? 'playbook_id', false);
    RETURN NULL;
END $$;

CREATE TRIGGER event_queue_copy_incident_rule_events AFTER INSERT ON event_queue
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION quarterdeck_copy_incident_rule_events();

-- One row per incident a rule opened: the resource it is about, and since
-- when that resource is healthy again (NULL while it fails).
CREATE TABLE incident_rule_incidents (
    incident_id      uuid        PRIMARY KEY REFERENCES incidents (id) ON DELETE CASCADE,
    incident_rule_id uuid        NOT NULL REFERENCES incident_rules (id),
    resource_kind    text        NOT NULL CHECK (resource_kind IN ('check', 'component', 'config')),
    resource_id      uuid        NOT NULL,
    recovered_at     timestamptz
);

CREATE INDEX incident_rule_incidents_rule_resource_idx ON incident_rule_incidents (incident_rule_id, resource_id);
CREATE INDEX incident_rule_incidents_resource_idx ON incident_rule_incidents (resource_id);
CREATE INDEX incident_rule_incidents_recovered_idx ON incident_rule_incidents (recovered_at) WHERE recovered_at IS NOT NULL;
