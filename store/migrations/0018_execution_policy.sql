-- The execution policy: whether canaries written in the console may run
-- scripts. One row; changed only through the admin-only settings endpoint
-- (it is not a relation of the data API).
CREATE TABLE execution_policy (
    id              boolean     PRIMARY KEY DEFAULT true CHECK (id),
    console_scripts boolean     NOT NULL DEFAULT false,
    updated_by      uuid        REFERENCES people (id),
    updated_at      timestamptz NOT NULL DEFAULT now()
);

INSERT INTO execution_policy DEFAULT VALUES;

-- A check of a console canary that names a connection and overrides its
-- endpoint gets the connection's credentials only when an admin saved it.
ALTER TABLE checks ADD COLUMN endpoint_override_approved boolean NOT NULL DEFAULT false;
