-- Single sign-on with OpenID Connect providers (decisions section 100).

-- A provider an admin configured. `client_secret` is encrypted under the
-- connection key (enc:v1:...) and never answered. `groups_claim` names the
-- claim (of the ID token or userinfo) holding the person's groups or roles.
-- `create_people` lets a first sign-in create a person; otherwise only
-- people linked already (or linked now by a verified email) sign in.
CREATE TABLE sso_providers (
    id            uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    slug          text        NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
    label         text        NOT NULL CHECK (length(label) BETWEEN 1 AND 100),
    issuer        text        NOT NULL,
    client_id     text        NOT NULL,
    client_secret text        NOT NULL,
    scopes        text[]      NOT NULL DEFAULT '{openid,email,profile}',
    groups_claim  text,
    create_people boolean     NOT NULL DEFAULT false,
    default_role  text,
    enabled       boolean     NOT NULL DEFAULT true,
    created_by    uuid        REFERENCES people (id) ON DELETE SET NULL,
    updated_by    uuid        REFERENCES people (id) ON DELETE SET NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TRIGGER sso_providers_set_updated_at BEFORE UPDATE ON sso_providers
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- A group of the provider's groups claim mapped to a role or a team. Each
-- mapping records the admin who set it: a mapping to `admin` applies only
-- while that person is a live admin.
CREATE TABLE sso_group_mappings (
    provider_id uuid        NOT NULL REFERENCES sso_providers (id) ON DELETE CASCADE,
    grp         text        NOT NULL CHECK (length(grp) BETWEEN 1 AND 256),
    role        text,
    team_id     uuid        REFERENCES teams (id) ON DELETE CASCADE,
    set_by      uuid        REFERENCES people (id) ON DELETE SET NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CHECK ((role IS NULL) <> (team_id IS NULL))
);

CREATE UNIQUE INDEX sso_group_mappings_role_key ON sso_group_mappings (provider_id, grp, role)
    WHERE role IS NOT NULL;
CREATE UNIQUE INDEX sso_group_mappings_team_key ON sso_group_mappings (provider_id, grp, team_id)
    WHERE team_id IS NOT NULL;

-- An authorization request sent to a provider, awaiting its callback.
-- `state` and the browser binding (a cookie) are stored as digests; the
-- nonce and PKCE verifier are needed in clear at the callback. `link_person`
-- is set when a signed-in person links an account from their profile.
CREATE TABLE sso_authorizations (
    state_digest   text        PRIMARY KEY,
    browser_digest text        NOT NULL,
    provider_id    uuid        NOT NULL REFERENCES sso_providers (id) ON DELETE CASCADE,
    nonce          text        NOT NULL,
    pkce_verifier  text        NOT NULL,
    return_to      text,
    link_person    uuid        REFERENCES people (id) ON DELETE CASCADE,
    created_at     timestamptz NOT NULL DEFAULT now(),
    expires_at     timestamptz NOT NULL,
    used_at        timestamptz
);

CREATE INDEX sso_authorizations_expires_idx ON sso_authorizations (expires_at);

-- A person's account at a provider: the provider's `sub` for them.
CREATE TABLE sso_identities (
    provider_id  uuid        NOT NULL REFERENCES sso_providers (id) ON DELETE CASCADE,
    subject      text        NOT NULL,
    person_id    uuid        NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    email        text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    PRIMARY KEY (provider_id, subject),
    UNIQUE (provider_id, person_id)
);

CREATE INDEX sso_identities_person_idx ON sso_identities (person_id);
