-- Notification rules, silences and the send history.
-- Durations are stored as bigint nanoseconds (Go duration semantics), except repeat_interval,
-- which keeps the duration string as written (e.g. '4h').

CREATE TABLE notifications (
    id                       uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name                     text        NOT NULL,
    namespace                text        NOT NULL DEFAULT 'default',
    events                   text[]      NOT NULL,
    title                    text,
    template                 text,
    -- CEL expression.
    filter                   text,
    -- Recipient ("to"): exactly what the rule resolved to, one of the four columns below.
    person_id                uuid        REFERENCES people (id),
    team_id                  uuid        REFERENCES teams (id),
    playbook_id              uuid        REFERENCES playbooks (id),
    -- e-mail, connection, url or webhook recipients.
    custom_services          jsonb,
    properties               jsonb,
    repeat_interval          text,
    group_by                 text[],
    group_by_interval        bigint,
    wait_for                 bigint,
    wait_for_eval_period     bigint,
    inhibitions              jsonb,
    fallback_person_id       uuid        REFERENCES people (id),
    fallback_team_id         uuid        REFERENCES teams (id),
    fallback_playbook_id     uuid        REFERENCES playbooks (id),
    fallback_custom_services jsonb,
    fallback_delay           bigint,
    error                    text,
    error_at                 timestamptz,
    source                   text        NOT NULL DEFAULT 'UI'
                             CHECK (source IN ('UI', 'KubernetesCRD', 'ConfigFile', 'Topology', 'Push', 'CRDSync', 'ApplicationCRD', 'System')),
    created_by               uuid        REFERENCES people (id),
    created_at               timestamptz NOT NULL DEFAULT now(),
    updated_at               timestamptz NOT NULL DEFAULT now(),
    deleted_at               timestamptz,
    CONSTRAINT notifications_recipient_check
        CHECK (num_nonnulls(person_id, team_id, playbook_id, custom_services) >= 1)
);

CREATE UNIQUE INDEX notifications_namespace_name_key ON notifications (namespace, name) WHERE deleted_at IS NULL;
CREATE INDEX notifications_events_idx ON notifications USING gin (events);

CREATE TRIGGER notifications_set_updated_at BEFORE UPDATE ON notifications
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE notification_silences (
    id           uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name         text        NOT NULL,
    namespace    text        NOT NULL DEFAULT 'default',
    description  text,
    -- CEL expression.
    filter       text,
    selectors    jsonb,
    error        text,
    -- "from" is a reserved word: always quote it in queries.
    "from"       timestamptz,
    -- NULL = silenced indefinitely.
    until        timestamptz,
    -- Also silence resources below the linked one.
    recursive    boolean     NOT NULL DEFAULT false,
    config_id    uuid        REFERENCES config_items (id),
    check_id     uuid        REFERENCES checks (id),
    canary_id    uuid        REFERENCES canaries (id),
    component_id uuid        REFERENCES components (id),
    source       text        NOT NULL DEFAULT 'UI'
                 CHECK (source IN ('UI', 'KubernetesCRD', 'ConfigFile', 'Topology', 'Push', 'CRDSync', 'ApplicationCRD', 'System')),
    created_by   uuid        REFERENCES people (id),
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    deleted_at   timestamptz,
    -- A silence with no matcher at all would silence everything.
    CONSTRAINT notification_silences_matcher_check
        CHECK (num_nonnulls(filter, selectors, config_id, check_id, canary_id, component_id) >= 1)
);

CREATE UNIQUE INDEX notification_silences_namespace_name_key ON notification_silences (namespace, name)
    WHERE deleted_at IS NULL;

CREATE TRIGGER notification_silences_set_updated_at BEFORE UPDATE ON notification_silences
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE notification_send_history (
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    notification_id uuid        NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
    -- sent, error, pending, silenced, repeat-interval, inhibited, skipped, ... (open-ended).
    status          text,
    source_event    text        NOT NULL,
    resource_id     uuid        NOT NULL,
    resource_health text,
    resource_status text,
    person_id       uuid        REFERENCES people (id),
    playbook_run_id uuid        REFERENCES playbook_runs (id) ON DELETE SET NULL,
    silenced_by     uuid        REFERENCES notification_silences (id) ON DELETE SET NULL,
    parent_id       uuid        REFERENCES notification_send_history (id) ON DELETE SET NULL,
    body            text,
    body_payload    jsonb,
    error           text,
    duration_millis integer,
    -- Repeats of the same event are folded into one row.
    count           integer     NOT NULL DEFAULT 1,
    retries         integer     NOT NULL DEFAULT 0,
    -- Pending sends are not attempted before this time.
    not_before      timestamptz,
    first_observed  timestamptz NOT NULL DEFAULT now(),
    created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX notification_send_history_notification_id_idx
    ON notification_send_history (notification_id, created_at DESC);
CREATE INDEX notification_send_history_resource_id_idx ON notification_send_history (resource_id);
CREATE INDEX notification_send_history_created_at_idx ON notification_send_history (created_at DESC);
CREATE INDEX notification_send_history_pending_idx ON notification_send_history (not_before)
    WHERE status = 'pending';

-- Deferred from 0007: a run can be started by a notification.
ALTER TABLE playbook_runs
    ADD CONSTRAINT playbook_runs_notification_send_id_fkey
    FOREIGN KEY (notification_send_id) REFERENCES notification_send_history (id) ON DELETE SET NULL;
