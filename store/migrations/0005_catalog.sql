-- Configuration catalog: scrapers, config items, their changes, analyses and relationships.

CREATE TABLE config_scrapers (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    agent_id    uuid        NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
    name        text        NOT NULL,
    namespace   text        NOT NULL DEFAULT 'default',
    description text,
    spec        jsonb       NOT NULL,
    source      text        NOT NULL DEFAULT 'UI'
                CHECK (source IN ('UI', 'KubernetesCRD', 'ConfigFile', 'Topology', 'Push', 'CRDSync', 'ApplicationCRD', 'System')),
    created_by  uuid        REFERENCES people (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    deleted_at  timestamptz
);

CREATE UNIQUE INDEX config_scrapers_namespace_name_key ON config_scrapers (namespace, name) WHERE deleted_at IS NULL;

CREATE TRIGGER config_scrapers_set_updated_at BEFORE UPDATE ON config_scrapers
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE config_items (
    id                uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    agent_id          uuid        NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
    scraper_id        uuid        REFERENCES config_scrapers (id) ON DELETE SET NULL,
    config_class      text        NOT NULL,
    type              text        NOT NULL,
    name              text,
    description       text,
    icon              text,
    status            text,
    health            text        CHECK (health IN ('healthy', 'unhealthy', 'warning', 'unknown')),
    ready             boolean,
    external_id       text[],
    config            jsonb,
    -- Where the item was scraped from (free text, e.g. a file path); not the resource-source enum.
    source            text,
    labels            jsonb       NOT NULL DEFAULT '{}',
    tags              jsonb       NOT NULL DEFAULT '{}',
    properties        jsonb,
    parent_id         uuid        REFERENCES config_items (id) ON DELETE SET NULL,
    -- Dot-separated ancestor ids, root first.
    path              text,
    -- double precision rather than numeric so they map to f64 without extra sqlx features.
    cost_per_minute   double precision,
    cost_total_1d     double precision,
    cost_total_7d     double precision,
    cost_total_30d    double precision,
    last_scraped_time timestamptz,
    created_by        uuid        REFERENCES people (id),
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    inserted_at       timestamptz NOT NULL DEFAULT now(),
    deleted_at        timestamptz,
    delete_reason     text
);

CREATE INDEX config_items_type_idx ON config_items (type);
CREATE INDEX config_items_name_idx ON config_items (name);
CREATE INDEX config_items_config_class_idx ON config_items (config_class);
CREATE INDEX config_items_scraper_id_idx ON config_items (scraper_id);
CREATE INDEX config_items_parent_id_idx ON config_items (parent_id);
CREATE INDEX config_items_external_id_idx ON config_items USING gin (external_id);
CREATE INDEX config_items_tags_idx ON config_items USING gin (tags);
CREATE INDEX config_items_labels_idx ON config_items USING gin (labels);

CREATE TRIGGER config_items_set_updated_at BEFORE UPDATE ON config_items
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE config_changes (
    id                  uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    config_id           uuid        NOT NULL REFERENCES config_items (id) ON DELETE CASCADE,
    external_change_id  text,
    external_created_by text,
    created_by          uuid        REFERENCES people (id),
    change_type         text,
    severity            text,
    source              text,
    summary             text,
    patches             jsonb,
    diff                text,
    details             jsonb,
    -- Identical changes are folded into one row: count and first_observed track them.
    count               integer     NOT NULL DEFAULT 1,
    fingerprint         text,
    first_observed      timestamptz NOT NULL DEFAULT now(),
    created_at          timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT config_changes_config_id_external_change_id_key UNIQUE (config_id, external_change_id)
);

CREATE INDEX config_changes_config_id_created_at_idx ON config_changes (config_id, created_at DESC);
CREATE INDEX config_changes_created_at_idx ON config_changes (created_at DESC);
CREATE INDEX config_changes_change_type_idx ON config_changes (change_type);
CREATE INDEX config_changes_fingerprint_idx ON config_changes (config_id, fingerprint);

CREATE TABLE config_analysis (
    id             uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    config_id      uuid        NOT NULL REFERENCES config_items (id) ON DELETE CASCADE,
    scraper_id     uuid        REFERENCES config_scrapers (id) ON DELETE SET NULL,
    source         text,
    analyzer       text        NOT NULL,
    analysis_type  text,
    severity       text,
    summary        text,
    status         text        NOT NULL DEFAULT 'open',
    message        text,
    analysis       jsonb,
    first_observed timestamptz NOT NULL DEFAULT now(),
    last_observed  timestamptz,
    created_by     uuid        REFERENCES people (id),
    created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX config_analysis_config_id_idx ON config_analysis (config_id);
CREATE INDEX config_analysis_analyzer_idx ON config_analysis (analyzer);
CREATE INDEX config_analysis_status_idx ON config_analysis (status);

-- Link tables: selector_id records which selector produced the link ('manual' for UI links);
-- deleted_at soft-deletes a link that a selector no longer produces.
CREATE TABLE config_relationships (
    config_id   uuid        NOT NULL REFERENCES config_items (id) ON DELETE CASCADE,
    related_id  uuid        NOT NULL REFERENCES config_items (id) ON DELETE CASCADE,
    relation    text        NOT NULL,
    scraper_id  uuid        REFERENCES config_scrapers (id) ON DELETE SET NULL,
    selector_id text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    deleted_at  timestamptz,
    CONSTRAINT config_relationships_key UNIQUE (config_id, related_id, relation)
);

CREATE INDEX config_relationships_related_id_idx ON config_relationships (related_id);

CREATE TRIGGER config_relationships_set_updated_at BEFORE UPDATE ON config_relationships
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE check_config_relationships (
    config_id   uuid        NOT NULL REFERENCES config_items (id) ON DELETE CASCADE,
    check_id    uuid        NOT NULL REFERENCES checks (id) ON DELETE CASCADE,
    canary_id   uuid        NOT NULL REFERENCES canaries (id) ON DELETE CASCADE,
    selector_id text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    deleted_at  timestamptz,
    CONSTRAINT check_config_relationships_key UNIQUE NULLS NOT DISTINCT (config_id, check_id, canary_id, selector_id)
);

CREATE INDEX check_config_relationships_check_id_idx ON check_config_relationships (check_id);

CREATE TRIGGER check_config_relationships_set_updated_at BEFORE UPDATE ON check_config_relationships
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();
