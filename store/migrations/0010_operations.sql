-- Background jobs and events, log backends, GitOps integrations and views.

CREATE TABLE job_history (
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    agent_id        uuid        NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
    name            text        NOT NULL,
    success_count   integer     NOT NULL DEFAULT 0,
    error_count     integer     NOT NULL DEFAULT 0,
    -- errors (string, list or map), scrape_summary, summary.
    details         jsonb,
    hostname        text,
    duration_millis integer,
    -- canary, topology, config_scraper, ...; resource_id is text because not every job targets a uuid.
    resource_type   text,
    resource_id     text,
    status          text        NOT NULL DEFAULT 'RUNNING'
                    CHECK (status IN ('RUNNING', 'SUCCESS', 'WARNING', 'FAILED', 'STOPPED', 'SKIPPED')),
    time_start      timestamptz NOT NULL DEFAULT now(),
    time_end        timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX job_history_created_at_idx ON job_history (created_at DESC);
CREATE INDEX job_history_name_idx ON job_history (name);
CREATE INDEX job_history_resource_idx ON job_history (resource_type, resource_id);

CREATE TABLE event_queue (
    id           uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name         text        NOT NULL,
    properties   jsonb,
    error        text,
    attempts     integer     NOT NULL DEFAULT 0,
    last_attempt timestamptz,
    priority     integer     NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL DEFAULT now()
);

-- Consumers claim with WHERE name = ANY($1) ORDER BY priority DESC, created_at FOR UPDATE SKIP LOCKED.
CREATE INDEX event_queue_claim_idx ON event_queue (name, priority DESC, created_at);

CREATE TABLE logging_backends (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    agent_id   uuid        NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
    name       text        NOT NULL,
    labels     jsonb       NOT NULL DEFAULT '{}',
    spec       jsonb       NOT NULL,
    source     text        NOT NULL DEFAULT 'UI'
               CHECK (source IN ('UI', 'KubernetesCRD', 'ConfigFile', 'Topology', 'Push', 'CRDSync', 'ApplicationCRD', 'System')),
    created_by uuid        REFERENCES people (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    deleted_at timestamptz
);

CREATE UNIQUE INDEX logging_backends_name_key ON logging_backends (name) WHERE deleted_at IS NULL;

CREATE TRIGGER logging_backends_set_updated_at BEFORE UPDATE ON logging_backends
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- Integrations added via GitOps (a Helm chart plus values). Direct integrations live in
-- topologies, config_scrapers and logging_backends and are listed alongside these.
CREATE TABLE integrations (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    agent_id    uuid        NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
    name        text        NOT NULL,
    namespace   text        NOT NULL DEFAULT 'default',
    -- aws, azure, prometheus, flux, kubernetes, mission-control, ...
    type        text        NOT NULL,
    description text,
    labels      jsonb       NOT NULL DEFAULT '{}',
    -- Chart name and values.
    spec        jsonb       NOT NULL DEFAULT '{}',
    error       text,
    source      text        NOT NULL DEFAULT 'UI'
                CHECK (source IN ('UI', 'KubernetesCRD', 'ConfigFile', 'Topology', 'Push', 'CRDSync', 'ApplicationCRD', 'System')),
    created_by  uuid        REFERENCES people (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    deleted_at  timestamptz
);

CREATE UNIQUE INDEX integrations_namespace_name_key ON integrations (namespace, name) WHERE deleted_at IS NULL;

CREATE TRIGGER integrations_set_updated_at BEFORE UPDATE ON integrations
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE views (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name       text        NOT NULL,
    namespace  text        NOT NULL DEFAULT 'default',
    -- title, icon, ordinal and sidebar live under spec.display.
    spec       jsonb       NOT NULL,
    labels     jsonb       NOT NULL DEFAULT '{}',
    last_ran   timestamptz,
    error      text,
    source     text        NOT NULL DEFAULT 'UI'
               CHECK (source IN ('UI', 'KubernetesCRD', 'ConfigFile', 'Topology', 'Push', 'CRDSync', 'ApplicationCRD', 'System')),
    created_by uuid        REFERENCES people (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    deleted_at timestamptz
);

CREATE UNIQUE INDEX views_namespace_name_key ON views (namespace, name) WHERE deleted_at IS NULL;

CREATE TRIGGER views_set_updated_at BEFORE UPDATE ON views
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- Cached panel results per view and request (variables) fingerprint.
CREATE TABLE view_panels (
    view_id             uuid        NOT NULL REFERENCES views (id) ON DELETE CASCADE,
    request_fingerprint text        NOT NULL,
    results             jsonb       NOT NULL,
    agent_id            uuid        NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
    refreshed_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (view_id, request_fingerprint)
);
