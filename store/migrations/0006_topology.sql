-- Topologies, their components, and the links between components, checks and config items.

CREATE TABLE topologies (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    agent_id   uuid        NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
    name       text        NOT NULL,
    namespace  text        NOT NULL DEFAULT 'default',
    labels     jsonb       NOT NULL DEFAULT '{}',
    spec       jsonb,
    schedule   text,
    source     text        NOT NULL DEFAULT 'UI'
               CHECK (source IN ('UI', 'KubernetesCRD', 'ConfigFile', 'Topology', 'Push', 'CRDSync', 'ApplicationCRD', 'System')),
    created_by uuid        REFERENCES people (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    deleted_at timestamptz
);

CREATE UNIQUE INDEX topologies_agent_id_namespace_name_key ON topologies (agent_id, namespace, name)
    WHERE deleted_at IS NULL;

CREATE TRIGGER topologies_set_updated_at BEFORE UPDATE ON topologies
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE components (
    id            uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    agent_id      uuid        NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
    topology_id   uuid        REFERENCES topologies (id) ON DELETE CASCADE,
    external_id   text,
    parent_id     uuid        REFERENCES components (id) ON DELETE CASCADE,
    config_id     uuid        REFERENCES config_items (id) ON DELETE SET NULL,
    name          text        NOT NULL,
    text          text,
    namespace     text,
    type          text,
    icon          text,
    owner         text,
    tooltip       text,
    description   text,
    lifecycle     text,
    labels        jsonb       NOT NULL DEFAULT '{}',
    hidden        boolean     NOT NULL DEFAULT false,
    status        text        NOT NULL DEFAULT 'unknown'
                  CHECK (status IN ('healthy', 'unhealthy', 'warning', 'error', 'info', 'unknown')),
    health        text        CHECK (health IN ('healthy', 'unhealthy', 'warning', 'unknown')),
    status_reason text,
    selectors     jsonb,
    configs       jsonb,
    log_selectors jsonb,
    properties    jsonb,
    summary       jsonb,
    -- Dot-separated ancestor ids, root first.
    path          text,
    created_by    uuid        REFERENCES people (id),
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    deleted_at    timestamptz
);

-- NULLS NOT DISTINCT so two root components (parent_id NULL) of the same type and name collide.
CREATE UNIQUE INDEX components_topology_id_type_name_parent_id_key
    ON components (topology_id, type, name, parent_id) NULLS NOT DISTINCT
    WHERE deleted_at IS NULL;
CREATE INDEX components_topology_id_idx ON components (topology_id);
CREATE INDEX components_parent_id_idx ON components (parent_id);
CREATE INDEX components_config_id_idx ON components (config_id);
CREATE INDEX components_name_idx ON components (name);
CREATE INDEX components_type_idx ON components (type);
CREATE INDEX components_labels_idx ON components USING gin (labels);

CREATE TRIGGER components_set_updated_at BEFORE UPDATE ON components
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- Link tables follow the same shape as in 0005 (selector_id, soft-deletable).
CREATE TABLE component_relationships (
    component_id      uuid        NOT NULL REFERENCES components (id) ON DELETE CASCADE,
    relationship_id   uuid        NOT NULL REFERENCES components (id) ON DELETE CASCADE,
    selector_id       text,
    relationship_path text,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    deleted_at        timestamptz,
    CONSTRAINT component_relationships_key UNIQUE NULLS NOT DISTINCT (component_id, relationship_id, selector_id)
);

CREATE INDEX component_relationships_relationship_id_idx ON component_relationships (relationship_id);

CREATE TRIGGER component_relationships_set_updated_at BEFORE UPDATE ON component_relationships
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE check_component_relationships (
    component_id uuid        NOT NULL REFERENCES components (id) ON DELETE CASCADE,
    check_id     uuid        NOT NULL REFERENCES checks (id) ON DELETE CASCADE,
    canary_id    uuid        NOT NULL REFERENCES canaries (id) ON DELETE CASCADE,
    selector_id  text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    deleted_at   timestamptz,
    CONSTRAINT check_component_relationships_key UNIQUE NULLS NOT DISTINCT (component_id, check_id, canary_id, selector_id)
);

CREATE INDEX check_component_relationships_check_id_idx ON check_component_relationships (check_id);

CREATE TRIGGER check_component_relationships_set_updated_at BEFORE UPDATE ON check_component_relationships
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE config_component_relationships (
    component_id uuid        NOT NULL REFERENCES components (id) ON DELETE CASCADE,
    config_id    uuid        NOT NULL REFERENCES config_items (id) ON DELETE CASCADE,
    -- 'manual' for links made in the UI.
    selector_id  text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    deleted_at   timestamptz,
    PRIMARY KEY (component_id, config_id)
);

CREATE INDEX config_component_relationships_config_id_idx ON config_component_relationships (config_id);

CREATE TRIGGER config_component_relationships_set_updated_at BEFORE UPDATE ON config_component_relationships
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();
