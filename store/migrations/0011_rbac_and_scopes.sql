-- Permissions, permission groups, scopes (CRD kind Scope) and access scopes (guest/team RLS scopes).
-- Last because permissions may point at almost any resource table.

CREATE TABLE permissions (
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    -- Nullable: permissions created in the UI may be unnamed; CRD permissions always have one.
    name            text,
    namespace       text        NOT NULL DEFAULT 'default',
    description     text,
    -- 'group' is a role or permission group (shown as "role" in the UI).
    subject_type    text        NOT NULL
                    CHECK (subject_type IN ('person', 'team', 'group', 'notification', 'playbook',
                                            'canary', 'scraper', 'topology', 'plugin')),
    -- Role/group name or the subject's id.
    subject         text,
    person_id       uuid        REFERENCES people (id),
    team_id         uuid        REFERENCES teams (id),
    notification_id uuid        REFERENCES notifications (id),
    -- Comma-separated actions, e.g. 'read' or 'playbook:run,playbook:approve'.
    action          text        NOT NULL,
    deny            boolean     NOT NULL DEFAULT false,
    -- Either a global object name (canaries, catalog, ...), a selector, or one of the *_id columns.
    object          text,
    object_selector jsonb,
    component_id    uuid        REFERENCES components (id),
    config_id       uuid        REFERENCES config_items (id),
    canary_id       uuid        REFERENCES canaries (id),
    playbook_id     uuid        REFERENCES playbooks (id),
    connection_id   uuid        REFERENCES connections (id),
    -- Deprecated filters kept for compatibility; ignored for authorization.
    agents          text[],
    tags            jsonb,
    until           timestamptz,
    error           text,
    source          text        NOT NULL DEFAULT 'UI'
                    CHECK (source IN ('UI', 'KubernetesCRD', 'ConfigFile', 'Topology', 'Push', 'CRDSync', 'ApplicationCRD', 'System')),
    created_by      uuid        REFERENCES people (id),
    updated_by      uuid        REFERENCES people (id),
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    deleted_at      timestamptz,
    CONSTRAINT permissions_subject_check
        CHECK (num_nonnulls(subject, person_id, team_id, notification_id) >= 1),
    CONSTRAINT permissions_object_check
        CHECK (num_nonnulls(object, object_selector, component_id, config_id, canary_id, playbook_id, connection_id) >= 1)
);

CREATE UNIQUE INDEX permissions_namespace_name_key ON permissions (namespace, name) WHERE deleted_at IS NULL;
CREATE INDEX permissions_person_id_idx ON permissions (person_id);
CREATE INDEX permissions_team_id_idx ON permissions (team_id);
CREATE INDEX permissions_subject_idx ON permissions (subject_type, subject);

CREATE TRIGGER permissions_set_updated_at BEFORE UPDATE ON permissions
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE permission_groups (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name       text        NOT NULL,
    namespace  text        NOT NULL DEFAULT 'default',
    -- {people: [...] ('*' = everyone), teams: [...], notifications|playbooks|canaries|scrapers|topologies: [{name, namespace}]}
    selectors  jsonb       NOT NULL,
    source     text        NOT NULL DEFAULT 'UI'
               CHECK (source IN ('UI', 'KubernetesCRD', 'ConfigFile', 'Topology', 'Push', 'CRDSync', 'ApplicationCRD', 'System')),
    created_by uuid        REFERENCES people (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    deleted_at timestamptz
);

CREATE UNIQUE INDEX permission_groups_namespace_name_key ON permission_groups (namespace, name) WHERE deleted_at IS NULL;

CREATE TRIGGER permission_groups_set_updated_at BEFORE UPDATE ON permission_groups
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- Scope CRD: named resource targets that permissions can refer to.
CREATE TABLE scopes (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name        text        NOT NULL,
    namespace   text        NOT NULL DEFAULT 'default',
    description text,
    -- [{config|component|canary|playbook|view|global: {agent, name, namespace, tagSelector}}], agent names resolved to ids.
    targets     jsonb       NOT NULL,
    source      text        NOT NULL DEFAULT 'UI'
                CHECK (source IN ('UI', 'KubernetesCRD', 'ConfigFile', 'Topology', 'Push', 'CRDSync', 'ApplicationCRD', 'System')),
    created_by  uuid        REFERENCES people (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    deleted_at  timestamptz
);

CREATE UNIQUE INDEX scopes_namespace_name_key ON scopes (namespace, name) WHERE deleted_at IS NULL;

CREATE TRIGGER scopes_set_updated_at BEFORE UPDATE ON scopes
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- Access scopes limit what a guest (person) or a team can see.
-- scopes is a non-empty list of {tags: {k: v}, agents: [agent ids], names: [...]}: within one entry
-- every given criterion must match, across entries any entry may match.
CREATE TABLE access_scopes (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name        text        NOT NULL,
    namespace   text        NOT NULL DEFAULT 'default',
    description text,
    person_id   uuid        REFERENCES people (id),
    team_id     uuid        REFERENCES teams (id),
    resources   text[]      NOT NULL,
    scopes      jsonb       NOT NULL,
    source      text        NOT NULL DEFAULT 'UI'
                CHECK (source IN ('UI', 'KubernetesCRD', 'ConfigFile', 'Topology', 'Push', 'CRDSync', 'ApplicationCRD', 'System')),
    created_by  uuid        REFERENCES people (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    deleted_at  timestamptz,
    CONSTRAINT access_scopes_subject_check CHECK (num_nonnulls(person_id, team_id) = 1),
    CONSTRAINT access_scopes_resources_check CHECK (
        cardinality(resources) > 0
        AND resources <@ ARRAY['*', 'config', 'component', 'playbook', 'canary']::text[]
        -- '*' already means all, so it stands alone.
        AND (NOT ('*' = ANY (resources)) OR cardinality(resources) = 1)
    ),
    -- CASE, not AND: jsonb_array_length raises on non-arrays and AND does not short-circuit reliably.
    CONSTRAINT access_scopes_scopes_check CHECK (
        CASE WHEN jsonb_typeof(scopes) = 'array' THEN jsonb_array_length(scopes) > 0 ELSE false END
    )
);

CREATE UNIQUE INDEX access_scopes_namespace_name_key ON access_scopes (namespace, name) WHERE deleted_at IS NULL;
CREATE INDEX access_scopes_person_id_idx ON access_scopes (person_id) WHERE deleted_at IS NULL;
CREATE INDEX access_scopes_team_id_idx ON access_scopes (team_id) WHERE deleted_at IS NULL;

CREATE TRIGGER access_scopes_set_updated_at BEFORE UPDATE ON access_scopes
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();
