-- Connections to external systems and runtime properties (settings and feature flags).

CREATE TABLE connections (
    id           uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name         text        NOT NULL,
    namespace    text        NOT NULL DEFAULT 'default',
    type         text        NOT NULL,
    -- url/username/password/certificate hold either a literal or a reference such as
    -- secret://name/key, configmap://name/key, helm://name/key or serviceaccount://name.
    url          text,
    username     text,
    password     text,
    certificate  text,
    insecure_tls boolean     NOT NULL DEFAULT false,
    properties   jsonb       NOT NULL DEFAULT '{}',
    source       text        NOT NULL DEFAULT 'UI'
                 CHECK (source IN ('UI', 'KubernetesCRD', 'ConfigFile', 'Topology', 'Push', 'CRDSync', 'ApplicationCRD', 'System')),
    created_by   uuid        REFERENCES people (id),
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    deleted_at   timestamptz
);

CREATE UNIQUE INDEX connections_namespace_name_key ON connections (namespace, name) WHERE deleted_at IS NULL;
CREATE INDEX connections_type_idx ON connections (type);

CREATE TRIGGER connections_set_updated_at BEFORE UPDATE ON connections
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE properties (
    name       text        PRIMARY KEY,
    value      text        NOT NULL,
    created_by uuid        REFERENCES people (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TRIGGER properties_set_updated_at BEFORE UPDATE ON properties
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();
