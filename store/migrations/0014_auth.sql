-- Self-service sign-in flows: a flow carries the CSRF token (stored hashed)
-- and expires; a submitted flow cannot be replayed.
CREATE TABLE login_flows (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    csrf_hash  text        NOT NULL,
    return_to  text,
    refresh    boolean     NOT NULL DEFAULT false,
    aal        text        NOT NULL DEFAULT 'aal1',
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX login_flows_expires_at_idx ON login_flows (expires_at);

-- Failed sign-ins, counted per account and per address across replicas.
CREATE TABLE login_failures (
    id    bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email text        NOT NULL,
    ip    text,
    at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX login_failures_email_idx ON login_failures (lower(email), at);
CREATE INDEX login_failures_ip_idx ON login_failures (ip, at);

-- One-time password-reset links an admin issues for a person.
CREATE TABLE password_resets (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    person_id  uuid        NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    token_hash text        NOT NULL UNIQUE,
    created_by uuid        REFERENCES people (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);

-- Access tokens act as their creator (person_id), limited by `scope`, and
-- are stored as SHA-256 digests: they are long random secrets, so a fast
-- hash is safe and keeps per-request verification cheap. `lifetime` is the
-- expiry a token is renewed by while used (auto_renew).
ALTER TABLE access_tokens ADD COLUMN lifetime interval;
ALTER TABLE access_tokens ADD COLUMN revoked_at timestamptz;
