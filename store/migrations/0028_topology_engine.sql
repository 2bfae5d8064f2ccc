-- The topology engine: claiming topologies through the database (several
-- operator replicas share them; each slot runs once), "run now", the teams of
-- components, and components following their topology's deletion.

-- next_run: the next slot (NULL: due at once). lease_until: a claimed run's end
-- at the latest; no other engine claims the topology before.
ALTER TABLE topologies
    ADD COLUMN next_run         timestamptz,
    ADD COLUMN lease_until      timestamptz,
    ADD COLUMN run_requested_at timestamptz;

CREATE INDEX topologies_next_run_idx ON topologies (next_run) WHERE deleted_at IS NULL;

-- An edited spec is built again at once rather than at the old slot.
CREATE FUNCTION topologies_spec_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.spec IS DISTINCT FROM OLD.spec OR NEW.schedule IS DISTINCT FROM OLD.schedule THEN
        NEW.next_run := NULL;
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER topologies_spec_changed BEFORE UPDATE OF spec, schedule ON topologies
    FOR EACH ROW EXECUTE FUNCTION topologies_spec_changed();

-- A deleted topology takes its live components and their links with it.
CREATE FUNCTION topologies_soft_delete_components() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.deleted_at IS NOT NULL AND OLD.deleted_at IS NULL THEN
        UPDATE check_component_relationships l SET deleted_at = NEW.deleted_at
        FROM components c
        WHERE c.topology_id = NEW.id AND l.component_id = c.id AND l.deleted_at IS NULL;
        UPDATE config_component_relationships l SET deleted_at = NEW.deleted_at
        FROM components c
        WHERE c.topology_id = NEW.id AND l.component_id = c.id AND l.deleted_at IS NULL;
        UPDATE component_relationships l SET deleted_at = NEW.deleted_at
        FROM components c
        WHERE c.topology_id = NEW.id AND l.component_id = c.id AND l.deleted_at IS NULL;
        UPDATE components SET deleted_at = NEW.deleted_at
        WHERE topology_id = NEW.id AND deleted_at IS NULL;
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER topologies_soft_delete_components AFTER UPDATE OF deleted_at ON topologies
    FOR EACH ROW EXECUTE FUNCTION topologies_soft_delete_components();

-- The teams of a component: those named by its `owner`.
CREATE TABLE team_components (
    team_id      uuid        NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    component_id uuid        NOT NULL REFERENCES components (id) ON DELETE CASCADE,
    role         text,
    selector_id  text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (team_id, component_id)
);

CREATE INDEX team_components_component_id_idx ON team_components (component_id);
