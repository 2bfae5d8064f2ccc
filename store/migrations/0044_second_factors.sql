-- Second factors (TOTP authenticator apps and backup recovery codes) and the
-- authenticator assurance level of each session.

-- One authenticator app per person. `secret` is the shared secret encrypted
-- under the connection key (enc:v1:...); it is never answered once enrolled.
-- Enrolment completes (confirmed_at) only with a valid code. `last_step` is
-- the last time step accepted, so no code is accepted twice.
CREATE TABLE totp_credentials (
    person_id    uuid        PRIMARY KEY REFERENCES people (id) ON DELETE CASCADE,
    secret       text        NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    confirmed_at timestamptz,
    last_step    bigint
);

-- Backup recovery codes: SHA-256 digests only, each usable once.
CREATE TABLE backup_codes (
    person_id  uuid        NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    digest     text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    used_at    timestamptz,
    PRIMARY KEY (person_id, digest)
);

ALTER TABLE sessions
    ADD COLUMN aal text NOT NULL DEFAULT 'aal1' CHECK (aal IN ('aal1', 'aal2'));

-- Who must have a second factor: 'nobody' (no row), 'admins' or 'everyone'.
-- One row at most.
CREATE TABLE second_factor_policy (
    singleton  boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    required   text        NOT NULL CHECK (required IN ('nobody', 'admins', 'everyone')),
    updated_by uuid        REFERENCES people (id) ON DELETE SET NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
