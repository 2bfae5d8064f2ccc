-- One type for the `source` column of every resource table, instead of a copy
-- of the same CHECK list per table. The list must equal store::source::Source
-- (store/tests/source.rs compares them). The free-text `source` columns of the
-- catalog (config_items, config_changes, config_analysis: where an item was
-- scraped from) are not resource sources and stay text.
CREATE DOMAIN resource_source AS text
    CONSTRAINT resource_source_check
    CHECK (VALUE IN ('UI', 'KubernetesCRD', 'ConfigFile', 'Topology', 'Push', 'CRDSync',
                     'ApplicationCRD', 'System'));

-- A column's type cannot change under a view that reads it.
DROP VIEW integrations_with_status;

DO $$
DECLARE
    tbl text;
    con text;
BEGIN
    FOREACH tbl IN ARRAY ARRAY[
        'teams', 'team_members', 'connections', 'canaries', 'config_scrapers', 'topologies',
        'playbooks', 'incident_rules', 'notifications', 'notification_silences',
        'logging_backends', 'integrations', 'views', 'permissions', 'permission_groups',
        'scopes', 'access_scopes'
    ] LOOP
        -- The CHECK written inline on the column: the one constraint on `source` alone.
        SELECT c.conname INTO STRICT con
        FROM pg_constraint AS c
        JOIN pg_attribute AS a ON a.attrelid = c.conrelid AND a.attname = 'source'
        WHERE c.conrelid = tbl::regclass AND c.contype = 'c' AND c.conkey = ARRAY[a.attnum];
        EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', tbl, con);
        EXECUTE format('ALTER TABLE %I ALTER COLUMN source TYPE resource_source', tbl);
    END LOOP;
END
$$;

-- As in 0015_integrations_view.sql.
CREATE VIEW integrations_with_status AS
SELECT i.id, i.agent_id, i.name, i.namespace, i.integration_type, i.type, i.labels, i.source,
       i.error, i.created_by, i.created_at, i.updated_at, i.deleted_at,
       job.status AS job_status, job.time_start AS job_time_start, job.error_count AS job_error_count,
       job.details AS job_details
FROM (
    SELECT id, agent_id, name, namespace, 'topology' AS integration_type, NULL::text AS type,
           labels, source, NULL::text AS error, created_by, created_at, updated_at, deleted_at,
           'topology' AS job_resource_type
    FROM topologies
    UNION ALL
    SELECT id, agent_id, name, namespace, 'scraper',
           COALESCE((SELECT k FROM jsonb_object_keys(spec) AS k
                     WHERE k NOT IN ('schedule', 'retention', 'full') ORDER BY k LIMIT 1), 'custom'),
           labels, source, NULL, created_by, created_at, updated_at, deleted_at, 'config_scraper'
    FROM config_scrapers
    UNION ALL
    SELECT id, agent_id, name, NULL, 'logging_backend', NULL,
           labels, source, NULL, created_by, created_at, updated_at, deleted_at, 'logging_backend'
    FROM logging_backends
    UNION ALL
    SELECT id, agent_id, name, namespace, 'gitops', type,
           labels, source, error, created_by, created_at, updated_at, deleted_at, 'integration'
    FROM integrations
) AS i
LEFT JOIN LATERAL (
    SELECT j.status, j.time_start, j.error_count, j.details
    FROM job_history AS j
    WHERE j.resource_type = i.job_resource_type AND j.resource_id = i.id::text
    ORDER BY j.time_start DESC
    LIMIT 1
) AS job ON true;
