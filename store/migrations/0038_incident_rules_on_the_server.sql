-- The incident model's rules, held by the database so every write path gets them
-- (the data API, the incident rules engine, seeds): status transitions and the
-- timestamps that follow the status, the hypothesis tree, and the incident history
-- (decision 86).

-- Who acts: the data API sets `quarterdeck.actor` (SET LOCAL) in its write
-- transactions; other writers leave it unset and history falls back to the row's
-- created_by (inserts) or NULL (the system).
CREATE FUNCTION quarterdeck_actor() RETURNS uuid
LANGUAGE sql STABLE AS $$
    SELECT nullif(current_setting('quarterdeck.actor', true), '')::uuid
$$;

CREATE FUNCTION quarterdeck_person_name(person uuid) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT coalesce((SELECT name FROM people WHERE id = person), 'nobody')
$$;

-- Incident status: new and open are where an incident starts; resolved may be
-- reopened; closed is final.
CREATE FUNCTION quarterdeck_incident_next_statuses(status text) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE status
        WHEN 'new'           THEN ARRAY['open', 'investigating', 'mitigated', 'resolved', 'closed']
        WHEN 'open'          THEN ARRAY['investigating', 'mitigated', 'resolved', 'closed']
        WHEN 'investigating' THEN ARRAY['open', 'mitigated', 'resolved', 'closed']
        WHEN 'mitigated'     THEN ARRAY['open', 'investigating', 'resolved', 'closed']
        WHEN 'resolved'      THEN ARRAY['open', 'investigating', 'closed']
        ELSE ARRAY[]::text[]
    END
$$;

CREATE FUNCTION quarterdeck_incident_status_rules() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    allowed text[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.status NOT IN ('new', 'open', 'investigating') THEN
            RAISE EXCEPTION 'status: a new incident starts as new, open or investigating, not %', NEW.status
                USING ERRCODE = 'check_violation';
        END IF;
        NEW.acknowledged := CASE WHEN NEW.status = 'investigating' THEN now() END;
        NEW.resolved := NULL;
        NEW.closed := NULL;
        RETURN NEW;
    END IF;

    -- The timestamps follow the status; nobody sets them by hand.
    NEW.acknowledged := OLD.acknowledged;
    NEW.resolved := OLD.resolved;
    NEW.closed := OLD.closed;
    IF NEW.status IS NOT DISTINCT FROM OLD.status THEN
        RETURN NEW;
    END IF;
    allowed := quarterdeck_incident_next_statuses(OLD.status);
    IF NOT NEW.status = ANY (allowed) THEN
        RAISE EXCEPTION 'status: an incident cannot go from % to %', OLD.status, NEW.status
            USING ERRCODE = 'check_violation',
                  DETAIL = CASE WHEN cardinality(allowed) = 0
                                THEN format('a %s incident is final', OLD.status)
                                ELSE format('from %s it may go to %s', OLD.status, array_to_string(allowed, ', '))
                           END;
    END IF;
    IF NEW.status IN ('investigating', 'mitigated', 'resolved', 'closed') THEN
        NEW.acknowledged := coalesce(NEW.acknowledged, now());
    END IF;
    IF NEW.status IN ('resolved', 'closed') THEN
        NEW.resolved := coalesce(NEW.resolved, now());
    ELSE
        NEW.resolved := NULL;
    END IF;
    IF NEW.status = 'closed' THEN
        NEW.closed := now();
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER incidents_status_rules BEFORE INSERT OR UPDATE ON incidents
    FOR EACH ROW EXECUTE FUNCTION quarterdeck_incident_status_rules();

-- The hypothesis tree: root, then factor, then solution. The type defaults to the
-- one below the parent's; a parent of another incident or a type that breaks the
-- order is refused.
CREATE FUNCTION quarterdeck_hypothesis_tree_rules() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    parent hypotheses%ROWTYPE;
    expected text;
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.incident_id IS DISTINCT FROM OLD.incident_id THEN
        RAISE EXCEPTION 'incident_id: a hypothesis cannot move to another incident'
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.parent_id IS NULL THEN
        expected := 'root';
    ELSE
        SELECT * INTO parent FROM hypotheses WHERE id = NEW.parent_id;
        IF NOT FOUND THEN
            -- The foreign key reports it.
            RETURN NEW;
        END IF;
        IF parent.incident_id <> NEW.incident_id THEN
            RAISE EXCEPTION 'parent_id: the parent hypothesis belongs to another incident'
                USING ERRCODE = 'check_violation';
        END IF;
        expected := CASE parent.type WHEN 'root' THEN 'factor' WHEN 'factor' THEN 'solution' END;
        IF expected IS NULL THEN
            RAISE EXCEPTION 'parent_id: a solution has no child hypotheses'
                USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    NEW.type := coalesce(NEW.type, expected);
    IF NEW.type <> expected THEN
        RAISE EXCEPTION 'type: a hypothesis %, not %',
            CASE WHEN NEW.parent_id IS NULL THEN 'without a parent is a root'
                 ELSE format('under a %s is a %s', parent.type, expected) END,
            NEW.type
            USING ERRCODE = 'check_violation';
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.type <> OLD.type
       AND EXISTS (SELECT 1 FROM hypotheses WHERE parent_id = NEW.id) THEN
        RAISE EXCEPTION 'type: a hypothesis with child hypotheses keeps its type'
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER hypotheses_tree_rules BEFORE INSERT OR UPDATE OF incident_id, parent_id, type ON hypotheses
    FOR EACH ROW EXECUTE FUNCTION quarterdeck_hypothesis_tree_rules();

-- The incident history: one row per event of the spec, written here so that every
-- writer records it. incident.status_updated is a change of status;
-- incident_status.updated a change of the other header fields (title, type,
-- severity, commander, communicator).
CREATE FUNCTION quarterdeck_incident_history(
    incident uuid, event text, description text, actor uuid,
    hypothesis uuid DEFAULT NULL, evidence uuid DEFAULT NULL, responder uuid DEFAULT NULL
) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO incident_histories (incident_id, type, description, hypothesis_id, evidence_id, responder_id, created_by)
    VALUES (incident, event, description, hypothesis, evidence, responder, actor)
$$;

CREATE FUNCTION quarterdeck_incidents_history() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    changes text[] := ARRAY[]::text[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM quarterdeck_incident_history(NEW.id, 'incident.created',
            format('Incident %s created (%s, %s severity, %s): %s',
                   NEW.incident_id, NEW.type, NEW.severity, NEW.status, NEW.title),
            coalesce(quarterdeck_actor(), NEW.created_by));
        RETURN NULL;
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        PERFORM quarterdeck_incident_history(NEW.id, 'incident.status_updated',
            format('Status changed from %s to %s', OLD.status, NEW.status), quarterdeck_actor());
    END IF;
    IF NEW.title IS DISTINCT FROM OLD.title THEN
        changes := changes || format('title changed to "%s"', NEW.title);
    END IF;
    IF NEW.type IS DISTINCT FROM OLD.type THEN
        changes := changes || format('type changed from %s to %s', OLD.type, NEW.type);
    END IF;
    IF NEW.severity IS DISTINCT FROM OLD.severity THEN
        changes := changes || format('severity changed from %s to %s', OLD.severity, NEW.severity);
    END IF;
    IF NEW.commander_id IS DISTINCT FROM OLD.commander_id THEN
        changes := changes || format('commander set to %s', quarterdeck_person_name(NEW.commander_id));
    END IF;
    IF NEW.communicator_id IS DISTINCT FROM OLD.communicator_id THEN
        changes := changes || format('communicator set to %s', quarterdeck_person_name(NEW.communicator_id));
    END IF;
    IF cardinality(changes) > 0 THEN
        PERFORM quarterdeck_incident_history(NEW.id, 'incident_status.updated',
            initcap(left(array_to_string(changes, '; '), 1)) || substr(array_to_string(changes, '; '), 2),
            quarterdeck_actor());
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER incidents_history AFTER INSERT OR UPDATE ON incidents
    FOR EACH ROW EXECUTE FUNCTION quarterdeck_incidents_history();

CREATE FUNCTION quarterdeck_hypotheses_history() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM quarterdeck_incident_history(NEW.incident_id, 'hypothesis.created',
            format('Hypothesis added (%s, %s): %s', NEW.type, NEW.status, NEW.title),
            coalesce(quarterdeck_actor(), NEW.created_by), hypothesis => NEW.id);
    ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
        PERFORM quarterdeck_incident_history(NEW.incident_id, 'hypothesis.status_updated',
            format('Hypothesis "%s" changed from %s to %s', NEW.title, OLD.status, NEW.status),
            quarterdeck_actor(), hypothesis => NEW.id);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER hypotheses_history AFTER INSERT OR UPDATE ON hypotheses
    FOR EACH ROW EXECUTE FUNCTION quarterdeck_hypotheses_history();

CREATE FUNCTION quarterdeck_evidences_history() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    hypothesis hypotheses%ROWTYPE;
    what text;
BEGIN
    SELECT * INTO hypothesis FROM hypotheses WHERE id = NEW.hypothesis_id;
    what := CASE WHEN NEW.description <> '' THEN NEW.description ELSE replace(NEW.type, '_', ' ') END;
    IF TG_OP = 'INSERT' THEN
        PERFORM quarterdeck_incident_history(hypothesis.incident_id, 'evidence.created',
            format('Evidence added to hypothesis "%s": %s', hypothesis.title, what),
            coalesce(quarterdeck_actor(), NEW.created_by), hypothesis => hypothesis.id, evidence => NEW.id);
    END IF;
    IF NEW.definition_of_done AND (TG_OP = 'INSERT' OR NOT OLD.definition_of_done) THEN
        PERFORM quarterdeck_incident_history(hypothesis.incident_id, 'evidence.done_definition_added',
            format('Evidence "%s" added to the definition of done', what),
            coalesce(quarterdeck_actor(), CASE WHEN TG_OP = 'INSERT' THEN NEW.created_by END),
            hypothesis => hypothesis.id, evidence => NEW.id);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER evidences_history AFTER INSERT OR UPDATE ON evidences
    FOR EACH ROW EXECUTE FUNCTION quarterdeck_evidences_history();

CREATE FUNCTION quarterdeck_responders_history() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM quarterdeck_incident_history(NEW.incident_id, 'responder.created',
        format('Responder added: %s', coalesce(
            (SELECT name FROM people WHERE id = NEW.person_id),
            (SELECT 'team ' || name FROM teams WHERE id = NEW.team_id),
            NEW.type || coalesce(' ' || NEW.external_id, ''))),
        coalesce(quarterdeck_actor(), NEW.created_by), responder => NEW.id);
    RETURN NULL;
END
$$;

CREATE TRIGGER responders_history AFTER INSERT ON responders
    FOR EACH ROW EXECUTE FUNCTION quarterdeck_responders_history();

-- Every comment is a responder's word on the incident (a person in the console, or
-- a responder's external system when responder_id is set).
CREATE FUNCTION quarterdeck_comments_history() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM quarterdeck_incident_history(NEW.incident_id, 'responder.commented',
        format('%s commented: %s',
               coalesce(NEW.external_created_by, quarterdeck_person_name(NEW.created_by)),
               CASE WHEN length(NEW.comment) > 200 THEN left(NEW.comment, 199) || '…' ELSE NEW.comment END),
        coalesce(quarterdeck_actor(), NEW.created_by),
        hypothesis => NEW.hypothesis_id, responder => NEW.responder_id);
    RETURN NULL;
END
$$;

CREATE TRIGGER comments_history AFTER INSERT ON comments
    FOR EACH ROW EXECUTE FUNCTION quarterdeck_comments_history();

-- What an incident's evidences link it to: the resources that decide whether a
-- caller restricted by access scopes sees the incident.
CREATE VIEW incident_resources AS
SELECT h.incident_id, e.hypothesis_id, e.id AS evidence_id, e.config_id, e.config_change_id,
       e.config_analysis_id, e.component_id, e.check_id
FROM evidences e
JOIN hypotheses h ON h.id = e.hypothesis_id
WHERE num_nonnulls(e.config_id, e.config_change_id, e.config_analysis_id, e.component_id, e.check_id) > 0;

-- One row per incident with what the list needs: counts of what hangs off it, the
-- commander's and communicator's names, and its age (until closed).
CREATE VIEW incident_summary AS
SELECT i.id, i.incident_id, i.title, i.description, i.type, i.severity, i.status,
       i.incident_rule_id, i.created_by, i.commander_id, commander.name AS commander,
       i.communicator_id, communicator.name AS communicator,
       i.acknowledged, i.resolved, i.closed, i.created_at, i.updated_at,
       (SELECT count(*) FROM hypotheses h WHERE h.incident_id = i.id) AS hypotheses,
       (SELECT count(*) FROM evidences e JOIN hypotheses h ON h.id = e.hypothesis_id
         WHERE h.incident_id = i.id) AS evidences,
       (SELECT count(*) FROM responders r WHERE r.incident_id = i.id) AS responders,
       (SELECT count(*) FROM comments c WHERE c.incident_id = i.id) AS comments,
       floor(extract(epoch FROM coalesce(i.closed, now()) - i.created_at))::bigint AS age_seconds
FROM incidents i
LEFT JOIN people commander ON commander.id = i.commander_id
LEFT JOIN people communicator ON communicator.id = i.communicator_id;

-- Incidents not resolved or closed, per component and per config item their
-- evidences link (Mission Control's columns).
CREATE VIEW incidents_by_component AS
SELECT DISTINCT i.title, i.id, i.incident_id, i.created_at, i.type, i.status, i.severity, r.component_id
FROM incident_resources r
JOIN incidents i ON i.id = r.incident_id
WHERE r.component_id IS NOT NULL AND i.status NOT IN ('resolved', 'closed');

CREATE VIEW incidents_by_config AS
SELECT DISTINCT i.title, i.id, i.incident_id, i.created_at, i.type, i.status, i.severity, r.config_id
FROM incident_resources r
JOIN incidents i ON i.id = r.incident_id
WHERE r.config_id IS NOT NULL AND i.status NOT IN ('resolved', 'closed');
