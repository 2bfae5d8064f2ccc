-- Incidents with hypotheses, evidence, responders, comments and history; incident rules.

CREATE TABLE incident_rules (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name       text        NOT NULL,
    namespace  text        NOT NULL DEFAULT 'default',
    spec       jsonb       NOT NULL,
    source     text        NOT NULL DEFAULT 'UI'
               CHECK (source IN ('UI', 'KubernetesCRD', 'ConfigFile', 'Topology', 'Push', 'CRDSync', 'ApplicationCRD', 'System')),
    created_by uuid        REFERENCES people (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    deleted_at timestamptz
);

CREATE UNIQUE INDEX incident_rules_namespace_name_key ON incident_rules (namespace, name) WHERE deleted_at IS NULL;

CREATE TRIGGER incident_rules_set_updated_at BEFORE UPDATE ON incident_rules
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- Feeds the human-readable incident number: INC0000001, INC0000002, ...
CREATE SEQUENCE incident_id_seq;

CREATE TABLE incidents (
    id               uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    incident_id      text        NOT NULL UNIQUE
                     DEFAULT 'INC' || lpad(nextval('incident_id_seq')::text, 7, '0'),
    incident_rule_id uuid        REFERENCES incident_rules (id),
    title            text        NOT NULL,
    description      text        NOT NULL DEFAULT '',
    type             text        NOT NULL DEFAULT 'availability'
                     CHECK (type IN ('cost', 'availability', 'performance', 'security', 'integration',
                                     'compliance', 'technicalDebt', 'reliability')),
    severity         text        NOT NULL DEFAULT 'low'
                     CHECK (severity IN ('low', 'medium', 'high', 'blocker', 'critical')),
    status           text        NOT NULL DEFAULT 'open'
                     CHECK (status IN ('new', 'open', 'investigating', 'mitigated', 'resolved', 'closed')),
    created_by       uuid        NOT NULL REFERENCES people (id),
    commander_id     uuid        REFERENCES people (id),
    communicator_id  uuid        REFERENCES people (id),
    acknowledged     timestamptz,
    resolved         timestamptz,
    closed           timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX incidents_status_idx ON incidents (status);
CREATE INDEX incidents_created_at_idx ON incidents (created_at DESC);

CREATE TRIGGER incidents_set_updated_at BEFORE UPDATE ON incidents
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE hypotheses (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    incident_id uuid        NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    parent_id   uuid        REFERENCES hypotheses (id) ON DELETE CASCADE,
    -- root > factor > solution.
    type        text        NOT NULL
                CHECK (type IN ('root', 'factor', 'solution')),
    title       text        NOT NULL,
    status      text        NOT NULL DEFAULT 'possible'
                CHECK (status IN ('proven', 'likely', 'possible', 'unlikely', 'improbable', 'disproven')),
    owner       uuid        REFERENCES people (id),
    team_id     uuid        REFERENCES teams (id),
    created_by  uuid        REFERENCES people (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX hypotheses_incident_id_idx ON hypotheses (incident_id);
CREATE INDEX hypotheses_parent_id_idx ON hypotheses (parent_id);

CREATE TRIGGER hypotheses_set_updated_at BEFORE UPDATE ON hypotheses
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- References to catalog/health rows use the default NO ACTION: those rows are soft-deleted,
-- and retention jobs must skip rows that are still held as evidence.
CREATE TABLE evidences (
    id                 uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    hypothesis_id      uuid        NOT NULL REFERENCES hypotheses (id) ON DELETE CASCADE,
    type               text        NOT NULL
                       CHECK (type IN ('log', 'config', 'topology', 'check', 'config_analysis', 'config_change', 'comment')),
    description        text        NOT NULL DEFAULT '',
    config_id          uuid        REFERENCES config_items (id),
    config_change_id   uuid        REFERENCES config_changes (id),
    config_analysis_id uuid        REFERENCES config_analysis (id),
    component_id       uuid        REFERENCES components (id),
    check_id           uuid        REFERENCES checks (id),
    evidence           jsonb,
    properties         jsonb,
    definition_of_done boolean     NOT NULL DEFAULT false,
    done               boolean     NOT NULL DEFAULT false,
    script             text,
    created_by         uuid        REFERENCES people (id),
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX evidences_hypothesis_id_idx ON evidences (hypothesis_id);
CREATE INDEX evidences_config_id_idx ON evidences (config_id);
CREATE INDEX evidences_component_id_idx ON evidences (component_id);
CREATE INDEX evidences_check_id_idx ON evidences (check_id);

CREATE TRIGGER evidences_set_updated_at BEFORE UPDATE ON evidences
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE responders (
    id           uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    incident_id  uuid        NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    -- person, team, email, jira, servicenow, slack, teams, github, ...
    type         text        NOT NULL,
    person_id    uuid        REFERENCES people (id),
    team_id      uuid        REFERENCES teams (id),
    properties   jsonb,
    external_id  text,
    acknowledged timestamptz,
    resolved     timestamptz,
    closed       timestamptz,
    created_by   uuid        NOT NULL REFERENCES people (id),
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX responders_incident_id_idx ON responders (incident_id);

CREATE TRIGGER responders_set_updated_at BEFORE UPDATE ON responders
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE comments (
    id                  uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    incident_id         uuid        NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    hypothesis_id       uuid        REFERENCES hypotheses (id) ON DELETE CASCADE,
    responder_id        uuid        REFERENCES responders (id) ON DELETE CASCADE,
    comment             text        NOT NULL,
    external_id         text,
    external_created_by text,
    created_by          uuid        NOT NULL REFERENCES people (id),
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX comments_incident_id_idx ON comments (incident_id);
CREATE INDEX comments_hypothesis_id_idx ON comments (hypothesis_id);

CREATE TRIGGER comments_set_updated_at BEFORE UPDATE ON comments
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- Audit trail; type is an incident event name (incident.created, hypothesis.status_updated, ...).
-- History outlives the hypothesis/evidence/responder it mentions.
CREATE TABLE incident_histories (
    id            uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    incident_id   uuid        NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    type          text        NOT NULL,
    description   text,
    hypothesis_id uuid        REFERENCES hypotheses (id) ON DELETE SET NULL,
    evidence_id   uuid        REFERENCES evidences (id) ON DELETE SET NULL,
    responder_id  uuid        REFERENCES responders (id) ON DELETE SET NULL,
    created_by    uuid        REFERENCES people (id),
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX incident_histories_incident_id_created_at_idx ON incident_histories (incident_id, created_at DESC);

CREATE TRIGGER incident_histories_set_updated_at BEFORE UPDATE ON incident_histories
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();
