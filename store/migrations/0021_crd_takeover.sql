-- A custom resource that took over a live row of another source (a console
-- row labelled quarterdeck.dev/adopt: "true", or any row with
-- --adopt-console-rows). The row comes back when the resource goes away.
CREATE TABLE crd_takeovers (
    table_name  text        NOT NULL,
    crd_id      uuid        NOT NULL,
    replaced_id uuid        NOT NULL,
    taken_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_name, crd_id, replaced_id)
);
