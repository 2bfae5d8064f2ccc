-- People, teams, agents, access tokens, sessions and invites.

CREATE TABLE people (
    id            uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name          text        NOT NULL,
    email         text,
    avatar        text,
    -- team_id's foreign key is added below, once teams exists.
    team_id       uuid,
    phone         text,
    -- NULL = a human; 'agent' and 'access_token' are machine identities.
    type          text        CHECK (type IN ('agent', 'access_token')),
    properties    jsonb,
    external_id   text,
    -- NULL for people who sign in through an external identity provider.
    password_hash text,
    roles         text[]      NOT NULL DEFAULT '{}',
    last_login    timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    deleted_at    timestamptz
);

-- Case-insensitive: Bob@x and bob@x are the same person.
CREATE UNIQUE INDEX people_email_key ON people (lower(email)) WHERE deleted_at IS NULL;
CREATE INDEX people_roles_idx ON people USING gin (roles);
CREATE INDEX people_external_id_idx ON people (external_id);

CREATE TRIGGER people_set_updated_at BEFORE UPDATE ON people
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE teams (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name       text        NOT NULL,
    icon       text        DEFAULT 'group',
    spec       jsonb,
    source     text        NOT NULL DEFAULT 'UI'
               CHECK (source IN ('UI', 'KubernetesCRD', 'ConfigFile', 'Topology', 'Push', 'CRDSync', 'ApplicationCRD', 'System')),
    created_by uuid        REFERENCES people (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    deleted_at timestamptz
);

CREATE UNIQUE INDEX teams_name_key ON teams (name) WHERE deleted_at IS NULL;

CREATE TRIGGER teams_set_updated_at BEFORE UPDATE ON teams
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

ALTER TABLE people
    ADD CONSTRAINT people_team_id_fkey FOREIGN KEY (team_id) REFERENCES teams (id) ON DELETE SET NULL;

CREATE TABLE team_members (
    team_id    uuid        NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    person_id  uuid        NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    source     text        NOT NULL DEFAULT 'UI'
               CHECK (source IN ('UI', 'KubernetesCRD', 'ConfigFile', 'Topology', 'Push', 'CRDSync', 'ApplicationCRD', 'System')),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (team_id, person_id)
);

CREATE INDEX team_members_person_id_idx ON team_members (person_id);

CREATE TABLE agents (
    id            uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name          text        NOT NULL,
    description   text,
    hostname      text,
    ip            text,
    version       text,
    username      text,
    -- The person (type 'agent') the agent authenticates as.
    person_id     uuid        REFERENCES people (id),
    properties    jsonb,
    last_seen     timestamptz,
    last_received timestamptz,
    -- Set when deleting an agent to also purge the data it pushed.
    cleanup       boolean     NOT NULL DEFAULT false,
    created_by    uuid        REFERENCES people (id),
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    deleted_at    timestamptz
);

CREATE UNIQUE INDEX agents_name_key ON agents (name) WHERE deleted_at IS NULL;

CREATE TRIGGER agents_set_updated_at BEFORE UPDATE ON agents
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- The all-zero id means "no agent" (this instance); every agent_id column defaults to it.
INSERT INTO agents (id, name, description)
VALUES ('00000000-0000-0000-0000-000000000000', 'local', 'This instance (no agent)')
ON CONFLICT DO NOTHING;

CREATE TABLE access_tokens (
    id           uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name         text        NOT NULL,
    -- Argon2id hash of the token; the plaintext is shown once and never stored.
    value        text        NOT NULL,
    -- The person (type 'access_token') the token acts as.
    person_id    uuid        NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    -- Optional list of permissions ({subject, object, action}); when set, anything else is denied.
    scope        jsonb,
    expires_at   timestamptz,
    auto_renew   boolean     NOT NULL DEFAULT false,
    created_by   uuid        REFERENCES people (id),
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    CONSTRAINT access_tokens_person_id_name_key UNIQUE (person_id, name),
    CONSTRAINT access_tokens_value_key UNIQUE (value)
);

CREATE INDEX access_tokens_created_by_idx ON access_tokens (created_by);

CREATE TABLE sessions (
    -- SHA-256 of the session secret held in the cookie; the secret itself is never stored.
    id           text        PRIMARY KEY,
    person_id    uuid        NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    revoked_at   timestamptz,
    ip           inet,
    user_agent   text
);

CREATE INDEX sessions_person_id_idx ON sessions (person_id);
CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);

CREATE TABLE invites (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    email       text        NOT NULL,
    first_name  text,
    last_name   text,
    role        text,
    -- The person row created for the invitee.
    person_id   uuid        REFERENCES people (id) ON DELETE CASCADE,
    -- SHA-256 of the invitation secret sent by e-mail.
    token_hash  text        NOT NULL UNIQUE,
    created_by  uuid        REFERENCES people (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    accepted_at timestamptz
);

CREATE INDEX invites_email_idx ON invites (lower(email));
