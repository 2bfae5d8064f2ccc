-- Self-service identity: registration, recovery and verification flows, the
-- codes they mail, and the admin settings behind them.

-- When the person proved they read mail at their address (verification).
ALTER TABLE people ADD COLUMN verified_at timestamptz;

-- One row at most. `mail_connection_id` names the e-mail connection the
-- flows send through (none: the flows that need mail are off).
CREATE TABLE identity_settings (
    singleton            boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    mail_connection_id   uuid        REFERENCES connections (id) ON DELETE SET NULL,
    registration_enabled boolean     NOT NULL DEFAULT false,
    -- Lower-case domains registration is limited to; empty: any.
    registration_domains text[]      NOT NULL DEFAULT '{}',
    registration_role    text        NOT NULL DEFAULT 'viewer' CHECK (registration_role <> 'admin'),
    updated_by           uuid        REFERENCES people (id) ON DELETE SET NULL,
    updated_at           timestamptz NOT NULL DEFAULT now()
);

-- A flow, as the sign-in flow (login_flows) but of another kind. `state`
-- follows the provider's: choose_method, then sent_email once a code went
-- out, then passed_challenge once the code was shown. `attempts` counts
-- wrong codes.
CREATE TABLE identity_flows (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    kind       text        NOT NULL CHECK (kind IN ('registration', 'recovery', 'verification')),
    state      text        NOT NULL DEFAULT 'choose_method'
                           CHECK (state IN ('choose_method', 'sent_email', 'passed_challenge')),
    csrf_hash  text        NOT NULL,
    return_to  text,
    -- The address the code went to (shown again; never revealing whether it is known).
    email      text,
    person_id  uuid        REFERENCES people (id) ON DELETE CASCADE,
    attempts   integer     NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX identity_flows_expires_idx ON identity_flows (expires_at);

-- A mailed code (digest only) and, for verification, a link secret (digest
-- only), each usable once.
CREATE TABLE identity_codes (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    flow_id    uuid        NOT NULL REFERENCES identity_flows (id) ON DELETE CASCADE,
    person_id  uuid        NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    purpose    text        NOT NULL CHECK (purpose IN ('recovery', 'verification')),
    email      text        NOT NULL,
    code_hash  text        NOT NULL,
    link_hash  text        UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX identity_codes_person_idx ON identity_codes (person_id, purpose, created_at);
