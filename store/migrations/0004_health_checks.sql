-- Canaries (health-check definitions), their checks, check results and rollups.

CREATE TABLE canaries (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    agent_id    uuid        NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
    name        text        NOT NULL,
    namespace   text        NOT NULL DEFAULT 'default',
    labels      jsonb       NOT NULL DEFAULT '{}',
    annotations jsonb,
    -- The full Canary spec, schedule included.
    spec        jsonb       NOT NULL,
    source      text        NOT NULL DEFAULT 'UI'
                CHECK (source IN ('UI', 'KubernetesCRD', 'ConfigFile', 'Topology', 'Push', 'CRDSync', 'ApplicationCRD', 'System')),
    created_by  uuid        REFERENCES people (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    deleted_at  timestamptz
);

CREATE UNIQUE INDEX canaries_agent_id_namespace_name_key ON canaries (agent_id, namespace, name)
    WHERE deleted_at IS NULL;
CREATE INDEX canaries_labels_idx ON canaries USING gin (labels);

CREATE TRIGGER canaries_set_updated_at BEFORE UPDATE ON canaries
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE checks (
    id                   uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    canary_id            uuid        NOT NULL REFERENCES canaries (id) ON DELETE CASCADE,
    agent_id             uuid        NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
    type                 text        NOT NULL,
    name                 text        NOT NULL,
    namespace            text,
    description          text,
    icon                 text,
    -- Target shown in lists and searched ("name, description, or endpoint"); derived from the spec.
    endpoint             text,
    spec                 jsonb,
    labels               jsonb       NOT NULL DEFAULT '{}',
    owner                text,
    severity             text,
    -- True for checks emitted by another check's transform.
    transformed          boolean     NOT NULL DEFAULT false,
    -- NULL until the first run.
    status               text        CHECK (status IN ('healthy', 'unhealthy')),
    last_runtime         timestamptz,
    next_runtime         timestamptz,
    last_transition_time timestamptz,
    silenced_at          timestamptz,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    deleted_at           timestamptz
);

CREATE UNIQUE INDEX checks_canary_id_type_name_key ON checks (canary_id, type, name) WHERE deleted_at IS NULL;
CREATE INDEX checks_canary_id_idx ON checks (canary_id);
-- Scheduler claims due checks with ... ORDER BY next_runtime FOR UPDATE SKIP LOCKED.
CREATE INDEX checks_next_runtime_idx ON checks (next_runtime) WHERE deleted_at IS NULL;
CREATE INDEX checks_labels_idx ON checks USING gin (labels);
CREATE INDEX checks_status_idx ON checks (status) WHERE deleted_at IS NULL;

CREATE TRIGGER checks_set_updated_at BEFORE UPDATE ON checks
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE check_statuses (
    check_id   uuid        NOT NULL REFERENCES checks (id) ON DELETE CASCADE,
    time       timestamptz NOT NULL,
    -- true = passed.
    status     boolean     NOT NULL,
    invalid    boolean     NOT NULL DEFAULT false,
    -- Milliseconds.
    duration   integer,
    message    text,
    error      text,
    details    jsonb,
    severity   text,
    created_at timestamptz NOT NULL DEFAULT now(),
    -- The primary-key index also serves "WHERE check_id = $1 ORDER BY time DESC" (scanned backwards).
    PRIMARY KEY (check_id, time)
);

-- Retention deletes by age across all checks.
CREATE INDEX check_statuses_time_idx ON check_statuses (time);

-- Hourly and daily rollups of check_statuses; created_at is the start of the bucket.
CREATE TABLE check_statuses_1h (
    check_id   uuid        NOT NULL REFERENCES checks (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    -- Average duration in milliseconds.
    duration   integer     NOT NULL DEFAULT 0,
    total      integer     NOT NULL DEFAULT 0,
    passed     integer     NOT NULL DEFAULT 0,
    failed     integer     NOT NULL DEFAULT 0,
    PRIMARY KEY (check_id, created_at)
);

CREATE TABLE check_statuses_1d (
    check_id   uuid        NOT NULL REFERENCES checks (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    duration   integer     NOT NULL DEFAULT 0,
    total      integer     NOT NULL DEFAULT 0,
    passed     integer     NOT NULL DEFAULT 0,
    failed     integer     NOT NULL DEFAULT 0,
    PRIMARY KEY (check_id, created_at)
);
