-- WebAuthn: hardware keys and biometrics, as a second factor and (for
-- passkeys) as a sign-in without a password.

-- A registered credential. `public_key` is the COSE key as the authenticator
-- gave it, `algorithm` its COSE algorithm. `rp_id` is the relying party it
-- was made for: a credential signs for that name only. `sign_count` is the
-- authenticator's counter; one that goes back marks a cloned key.
CREATE TABLE webauthn_credentials (
    id            uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    person_id     uuid        NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    credential_id bytea       NOT NULL UNIQUE,
    public_key    bytea       NOT NULL,
    algorithm     integer     NOT NULL,
    sign_count    bigint      NOT NULL DEFAULT 0,
    rp_id         text        NOT NULL,
    name          text        NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    -- Made as a discoverable credential with user verification: it signs in
    -- on its own.
    passwordless  boolean     NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_used_at  timestamptz
);
CREATE INDEX webauthn_credentials_person_idx ON webauthn_credentials (person_id);

-- A challenge handed to a browser, used once. Registration challenges belong
-- to a person (and carry the name and kind asked for); sign-in challenges to
-- a sign-in flow, one at a time, and to the person whose second factor it
-- asks for (none for a passkey sign-in, which finds the person by the key).
CREATE TABLE webauthn_challenges (
    id           uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    challenge    bytea       NOT NULL,
    person_id    uuid        REFERENCES people (id) ON DELETE CASCADE,
    flow_id      uuid        UNIQUE REFERENCES login_flows (id) ON DELETE CASCADE,
    name         text,
    passwordless boolean     NOT NULL DEFAULT false,
    expires_at   timestamptz NOT NULL,
    CHECK ((flow_id IS NULL) = (name IS NOT NULL)),
    CHECK (flow_id IS NOT NULL OR person_id IS NOT NULL)
);
CREATE INDEX webauthn_challenges_expires_idx ON webauthn_challenges (expires_at);

-- The one definition of "has a second factor": an enrolled authenticator app
-- or a registered key. Backup codes back these up and are not one.
CREATE FUNCTION has_second_factor(person uuid) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM totp_credentials
                   WHERE person_id = person AND confirmed_at IS NOT NULL)
        OR EXISTS (SELECT 1 FROM webauthn_credentials WHERE person_id = person)
$$;
