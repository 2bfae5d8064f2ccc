-- Playbooks, their runs, run actions, approvals and artifacts.

CREATE TABLE playbooks (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name        text        NOT NULL,
    namespace   text        NOT NULL DEFAULT 'default',
    -- spec.title, or the name when the spec has none.
    title       text        NOT NULL,
    icon        text,
    description text,
    -- '' rather than NULL so (namespace, name, category) uniqueness holds for uncategorised playbooks.
    category    text        NOT NULL DEFAULT '',
    spec        jsonb       NOT NULL,
    source      text        NOT NULL DEFAULT 'UI'
                CHECK (source IN ('UI', 'KubernetesCRD', 'ConfigFile', 'Topology', 'Push', 'CRDSync', 'ApplicationCRD', 'System')),
    created_by  uuid        REFERENCES people (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    deleted_at  timestamptz
);

CREATE UNIQUE INDEX playbooks_namespace_name_category_key ON playbooks (namespace, name, category)
    WHERE deleted_at IS NULL;

CREATE TRIGGER playbooks_set_updated_at BEFORE UPDATE ON playbooks
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE playbook_runs (
    id                   uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    playbook_id          uuid        NOT NULL REFERENCES playbooks (id),
    status               text        NOT NULL DEFAULT 'scheduled'
                         CHECK (status IN ('scheduled', 'pending', 'pending_approval', 'running', 'sleeping', 'waiting',
                                           'retrying', 'completed', 'failed', 'cancelled', 'timed_out')),
    -- Snapshot of the playbook spec at the time the run was created.
    spec                 jsonb       NOT NULL DEFAULT '{}',
    scheduled_time       timestamptz NOT NULL DEFAULT now(),
    start_time           timestamptz,
    end_time             timestamptz,
    -- Nanoseconds (Go duration semantics); default 30 minutes.
    timeout              bigint      NOT NULL DEFAULT 1800000000000,
    created_by           uuid        REFERENCES people (id),
    -- Foreign key to notification_send_history is added in 0009.
    notification_send_id uuid,
    check_id             uuid        REFERENCES checks (id),
    config_id            uuid        REFERENCES config_items (id),
    component_id         uuid        REFERENCES components (id),
    parameters           jsonb,
    request              jsonb,
    agent_id             uuid        NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
    parent_id            uuid        REFERENCES playbook_runs (id) ON DELETE CASCADE,
    error                text,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX playbook_runs_playbook_id_created_at_idx ON playbook_runs (playbook_id, created_at DESC);
CREATE INDEX playbook_runs_created_at_idx ON playbook_runs (created_at DESC);
-- Scheduler claims due runs: WHERE status = 'scheduled' AND scheduled_time <= now() ... FOR UPDATE SKIP LOCKED.
CREATE INDEX playbook_runs_status_scheduled_time_idx ON playbook_runs (status, scheduled_time);
CREATE INDEX playbook_runs_parent_id_idx ON playbook_runs (parent_id);
CREATE INDEX playbook_runs_check_id_idx ON playbook_runs (check_id);
CREATE INDEX playbook_runs_config_id_idx ON playbook_runs (config_id);
CREATE INDEX playbook_runs_component_id_idx ON playbook_runs (component_id);

CREATE TRIGGER playbook_runs_set_updated_at BEFORE UPDATE ON playbook_runs
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE playbook_run_actions (
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    playbook_run_id uuid        NOT NULL REFERENCES playbook_runs (id) ON DELETE CASCADE,
    name            text        NOT NULL,
    status          text        NOT NULL DEFAULT 'running'
                    CHECK (status IN ('scheduled', 'running', 'waiting', 'waiting_children', 'sleeping', 'skipped',
                                      'completed', 'failed', 'cancelled', 'timed_out')),
    retry_count     integer     NOT NULL DEFAULT 0,
    scheduled_time  timestamptz NOT NULL DEFAULT now(),
    start_time      timestamptz,
    end_time        timestamptz,
    result          jsonb,
    error           text,
    agent_id        uuid        NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX playbook_run_actions_playbook_run_id_idx ON playbook_run_actions (playbook_run_id);
CREATE INDEX playbook_run_actions_status_scheduled_time_idx ON playbook_run_actions (status, scheduled_time);

CREATE TRIGGER playbook_run_actions_set_updated_at BEFORE UPDATE ON playbook_run_actions
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE playbook_approvals (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    run_id     uuid        NOT NULL REFERENCES playbook_runs (id) ON DELETE CASCADE,
    -- The approving person; team_id is set when the approval counts for a listed team.
    person_id  uuid        REFERENCES people (id),
    team_id    uuid        REFERENCES teams (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT playbook_approvals_approver_check CHECK (num_nonnulls(person_id, team_id) >= 1),
    CONSTRAINT playbook_approvals_key UNIQUE NULLS NOT DISTINCT (run_id, person_id, team_id)
);

-- Files produced by run actions (and some checks), stored through a connection.
CREATE TABLE artifacts (
    id                     uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    playbook_run_action_id uuid        REFERENCES playbook_run_actions (id) ON DELETE CASCADE,
    check_id               uuid        REFERENCES checks (id) ON DELETE CASCADE,
    config_change_id       uuid        REFERENCES config_changes (id) ON DELETE CASCADE,
    connection_id          uuid        REFERENCES connections (id),
    path                   text        NOT NULL,
    filename               text        NOT NULL,
    size                   bigint      NOT NULL DEFAULT 0,
    content_type           text,
    checksum               text,
    expires_at             timestamptz,
    created_at             timestamptz NOT NULL DEFAULT now(),
    deleted_at             timestamptz
);

CREATE INDEX artifacts_playbook_run_action_id_idx ON artifacts (playbook_run_action_id);
CREATE INDEX artifacts_check_id_idx ON artifacts (check_id);
