-- What lies under each component, for the topology call's summaries: the
-- distinct checks and config items linked to the component or a descendant
-- (or that are their own item). The tree only changes when something writes
-- components or their links (a topology run, a link made in the console);
-- check statuses and insights change any time, so the call joins these ids
-- to them as it answers.
CREATE TABLE component_rollups (
    component_id uuid   PRIMARY KEY REFERENCES components (id) ON DELETE CASCADE,
    topology_id  uuid   NOT NULL,
    check_ids    uuid[] NOT NULL,
    config_ids   uuid[] NOT NULL
);

CREATE INDEX component_rollups_topology_id_idx ON component_rollups (topology_id);

-- Recomputes the rollups of a topology's live components: a walk down
-- `parent_id` from each live component whose parent is not a live component
-- of the topology, each with its chain of ancestors; every link counts for
-- its component and each ancestor.
CREATE FUNCTION quarterdeck_refresh_component_rollups(topology uuid) RETURNS void
LANGUAGE sql SET jit = off AS $$
WITH RECURSIVE walk (id, anc) AS (
    SELECT c.id, ARRAY[]::uuid[] FROM components c
    WHERE c.topology_id = topology AND c.deleted_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM components p WHERE p.id = c.parent_id
                      AND p.topology_id = topology AND p.deleted_at IS NULL)
    UNION ALL
    SELECT c.id, w.anc || w.id FROM walk w JOIN components c ON c.parent_id = w.id
    WHERE c.topology_id = topology AND c.deleted_at IS NULL AND c.id <> ALL (w.anc)
), links (node, check_id, config_id) AS (
    SELECT component_id, check_id, NULL::uuid FROM check_component_relationships
    WHERE deleted_at IS NULL
    UNION ALL
    SELECT component_id, NULL, config_id FROM config_component_relationships
    WHERE deleted_at IS NULL
    UNION ALL
    SELECT id, NULL, config_id FROM components
    WHERE topology_id = topology AND deleted_at IS NULL AND config_id IS NOT NULL
), rolled AS (
    SELECT a.id,
           coalesce(array_agg(DISTINCT l.check_id ORDER BY l.check_id)
                        FILTER (WHERE l.check_id IS NOT NULL), '{}') AS check_ids,
           coalesce(array_agg(DISTINCT l.config_id ORDER BY l.config_id)
                        FILTER (WHERE l.config_id IS NOT NULL), '{}') AS config_ids
    FROM walk w JOIN links l ON l.node = w.id CROSS JOIN LATERAL unnest(w.anc || w.id) AS a (id)
    GROUP BY 1
), fresh AS (
    SELECT w.id, coalesce(r.check_ids, '{}') AS check_ids, coalesce(r.config_ids, '{}') AS config_ids
    FROM walk w LEFT JOIN rolled r ON r.id = w.id
), gone AS (
    DELETE FROM component_rollups r
    WHERE r.topology_id = topology AND NOT EXISTS (SELECT 1 FROM fresh f WHERE f.id = r.component_id)
)
INSERT INTO component_rollups AS r (component_id, topology_id, check_ids, config_ids)
SELECT id, topology, check_ids, config_ids FROM fresh
ON CONFLICT (component_id) DO UPDATE
SET topology_id = EXCLUDED.topology_id, check_ids = EXCLUDED.check_ids, config_ids = EXCLUDED.config_ids
WHERE (r.topology_id, r.check_ids, r.config_ids)
      IS DISTINCT FROM (EXCLUDED.topology_id, EXCLUDED.check_ids, EXCLUDED.config_ids)
$$;

-- Whatever writes components or their links marks their topologies; at
-- commit each marked topology is recomputed once, in the writing
-- transaction (a topology run's many statements cost one recompute).
CREATE TABLE component_rollups_stale (
    topology_id uuid PRIMARY KEY
);

CREATE FUNCTION component_rollups_refresh_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM quarterdeck_refresh_component_rollups(NEW.topology_id);
    DELETE FROM component_rollups_stale WHERE topology_id = NEW.topology_id;
    RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER component_rollups_refresh_stale AFTER INSERT ON component_rollups_stale
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION component_rollups_refresh_stale();

-- Components: inserted, deleted, or changed in what the rollups read.
CREATE FUNCTION components_mark_rollups() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO component_rollups_stale
        SELECT DISTINCT topology_id FROM new_rows WHERE topology_id IS NOT NULL
        ON CONFLICT DO NOTHING;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO component_rollups_stale
        SELECT DISTINCT topology_id FROM old_rows WHERE topology_id IS NOT NULL
        ON CONFLICT DO NOTHING;
    ELSE
        INSERT INTO component_rollups_stale
        SELECT DISTINCT t.id
        FROM old_rows o JOIN new_rows n ON n.id = o.id
        CROSS JOIN LATERAL (VALUES (o.topology_id), (n.topology_id)) AS t (id)
        WHERE t.id IS NOT NULL
          AND (o.topology_id, o.parent_id, o.config_id, o.deleted_at IS NULL)
              IS DISTINCT FROM (n.topology_id, n.parent_id, n.config_id, n.deleted_at IS NULL)
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER components_mark_rollups_insert AFTER INSERT ON components
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION components_mark_rollups();
CREATE TRIGGER components_mark_rollups_update AFTER UPDATE ON components
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION components_mark_rollups();
CREATE TRIGGER components_mark_rollups_delete AFTER DELETE ON components
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION components_mark_rollups();

-- Links of checks and config items: the topologies of their components.
CREATE FUNCTION component_links_mark_rollups() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO component_rollups_stale
        SELECT DISTINCT c.topology_id FROM new_rows l JOIN components c ON c.id = l.component_id
        WHERE c.topology_id IS NOT NULL
        ON CONFLICT DO NOTHING;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO component_rollups_stale
        SELECT DISTINCT c.topology_id FROM old_rows l JOIN components c ON c.id = l.component_id
        WHERE c.topology_id IS NOT NULL
        ON CONFLICT DO NOTHING;
    ELSE
        INSERT INTO component_rollups_stale
        SELECT DISTINCT c.topology_id
        FROM (SELECT component_id FROM old_rows UNION SELECT component_id FROM new_rows) l
        JOIN components c ON c.id = l.component_id
        WHERE c.topology_id IS NOT NULL
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER check_component_relationships_mark_rollups_insert AFTER INSERT ON check_component_relationships
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION component_links_mark_rollups();
CREATE TRIGGER check_component_relationships_mark_rollups_update AFTER UPDATE ON check_component_relationships
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION component_links_mark_rollups();
CREATE TRIGGER check_component_relationships_mark_rollups_delete AFTER DELETE ON check_component_relationships
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION component_links_mark_rollups();
CREATE TRIGGER config_component_relationships_mark_rollups_insert AFTER INSERT ON config_component_relationships
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION component_links_mark_rollups();
CREATE TRIGGER config_component_relationships_mark_rollups_update AFTER UPDATE ON config_component_relationships
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION component_links_mark_rollups();
CREATE TRIGGER config_component_relationships_mark_rollups_delete AFTER DELETE ON config_component_relationships
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION component_links_mark_rollups();

SELECT quarterdeck_refresh_component_rollups(id) FROM topologies;

-- The topology call no longer reads ranges of paths.
DROP INDEX components_path_idx;
