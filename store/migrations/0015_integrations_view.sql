-- Every integration in one list for /settings/integrations: the direct ones (topologies,
-- catalog scrapers, log backends) and the GitOps ones, with the outcome of the latest job
-- that ran for each. Deleted rows are kept so the console can choose to show them.
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
