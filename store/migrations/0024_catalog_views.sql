-- The catalog's read side: the views and functions of the console's catalog calls
-- (/api/db/config_detail, config_tags, ..., rpc/related_configs_recursive) and the
-- indexes /api/catalog/changes needs over a million changes. Access scopes are not
-- applied here: the data API and the store's catalog queries add them per caller.

-- Manual links made through the data API: selector_id says who made a link.
ALTER TABLE config_component_relationships ALTER COLUMN selector_id SET DEFAULT 'manual';

-- /api/catalog/changes: newest first, alone or by type, severity or source; the tie
-- breaker id keeps pages stable.
CREATE INDEX config_changes_created_at_id_idx ON config_changes (created_at DESC, id DESC);
CREATE INDEX config_changes_change_type_created_at_idx ON config_changes (change_type, created_at DESC);
CREATE INDEX config_changes_severity_created_at_idx ON config_changes (severity, created_at DESC);
CREATE INDEX config_changes_source_created_at_idx ON config_changes (source, created_at DESC);
CREATE INDEX config_relationships_config_id_idx ON config_relationships (config_id);
CREATE INDEX config_items_status_idx ON config_items (status);
CREATE INDEX config_analysis_config_id_status_idx ON config_analysis (config_id, status);
CREATE INDEX check_config_relationships_config_id_idx ON check_config_relationships (config_id);

-- The catalog list: every column but the scraped document.
CREATE VIEW configs AS
SELECT id, agent_id, scraper_id, config_class, type, name, description, icon, status, health,
       ready, external_id, source, labels, tags, properties, parent_id, path, cost_per_minute,
       cost_total_1d, cost_total_7d, cost_total_30d, last_scraped_time, created_by, created_at,
       updated_at, inserted_at, deleted_at, delete_reason
FROM config_items;

-- One item with its agent's name, its scraper and how much hangs off it. The
-- summary counts everything; the API recounts it for callers access scopes restrict.
CREATE VIEW config_detail AS
SELECT ci.id, ci.agent_id, ci.scraper_id, ci.config_class, ci.type, ci.name, ci.description,
       ci.icon, ci.status, ci.health, ci.ready, ci.external_id, ci.config, ci.source, ci.labels,
       ci.tags, ci.properties, ci.parent_id, ci.path, ci.cost_per_minute, ci.cost_total_1d,
       ci.cost_total_7d, ci.cost_total_30d, ci.last_scraped_time, ci.created_by, ci.created_at,
       ci.updated_at, ci.inserted_at, ci.deleted_at, ci.delete_reason,
       ag.name AS agent_name,
       jsonb_build_object(
           'relationships', (SELECT count(*) FROM config_relationships r
                             WHERE (r.config_id = ci.id OR r.related_id = ci.id) AND r.deleted_at IS NULL),
           'analysis', (SELECT count(*) FROM config_analysis a WHERE a.config_id = ci.id AND a.status = 'open'),
           'changes', (SELECT count(*) FROM config_changes c WHERE c.config_id = ci.id),
           'playbook_runs', (SELECT count(*) FROM playbook_runs p WHERE p.config_id = ci.id),
           'checks', (SELECT count(*) FROM check_config_relationships k
                      WHERE k.config_id = ci.id AND k.deleted_at IS NULL)
       ) AS summary,
       -- Never the scraper's spec: it may hold credentials.
       (SELECT jsonb_build_object('id', s.id, 'name', s.name, 'namespace', s.namespace)
        FROM config_scrapers s WHERE s.id = ci.scraper_id) AS scraper
FROM config_items ci
LEFT JOIN agents ag ON ag.id = ci.agent_id;

-- One row per tag or label of a live item: what the distinct lists below are
-- scoped through (a value is listed to those who see an item carrying it).
CREATE VIEW config_item_tags AS
SELECT ci.id AS config_id, t.key, t.value, t.key || '=' || t.value AS tag
FROM config_items ci, jsonb_each_text(ci.tags) t
WHERE ci.deleted_at IS NULL;

CREATE VIEW config_item_labels AS
SELECT ci.id AS config_id, t.key, t.value, t.key || '=' || t.value AS label
FROM config_items ci, jsonb_each_text(ci.labels) t
WHERE ci.deleted_at IS NULL;

CREATE VIEW config_tags AS
SELECT DISTINCT tag AS id, key, value FROM config_item_tags;

CREATE VIEW config_labels AS
SELECT DISTINCT label AS id, key, value FROM config_item_labels;

CREATE VIEW config_names AS
SELECT id, agent_id, name, type, config_class, tags, deleted_at FROM config_items;

CREATE VIEW config_types AS
SELECT DISTINCT type AS id, type FROM config_items WHERE deleted_at IS NULL;

CREATE VIEW config_statuses AS
SELECT DISTINCT status AS id, status FROM config_items
WHERE deleted_at IS NULL AND status IS NOT NULL;

CREATE VIEW config_analysis_analyzers AS
SELECT DISTINCT analyzer AS id, analyzer FROM config_analysis;

-- Distinct change types by a loose index scan: one index probe per type, not a
-- pass over every change.
CREATE VIEW change_types AS
WITH RECURSIVE t(change_type) AS (
    SELECT min(change_type) FROM config_changes
    UNION ALL
    SELECT (SELECT min(c.change_type) FROM config_changes c WHERE c.change_type > t.change_type)
    FROM t WHERE t.change_type IS NOT NULL
)
SELECT change_type AS id, change_type FROM t WHERE change_type IS NOT NULL;

-- Analyses with what the insights list shows of their item.
CREATE VIEW config_analysis_items AS
SELECT a.id, a.config_id, a.scraper_id, a.source, a.analyzer, a.analysis_type, a.severity,
       a.summary, a.status, a.message, a.analysis, a.first_observed, a.last_observed,
       a.created_at, ci.name AS config_name, ci.type AS config_type,
       ci.config_class, ci.tags AS config_tags, ci.deleted_at AS config_deleted_at
FROM config_analysis a
JOIN config_items ci ON ci.id = a.config_id;

CREATE VIEW analysis_by_component AS
SELECT a.id, r.component_id, a.config_id, a.analyzer, a.analysis_type, a.severity, a.summary,
       a.status, a.message, a.first_observed, a.last_observed, a.created_at,
       ci.name AS config_name, ci.type AS config_type
FROM config_component_relationships r
JOIN config_analysis a ON a.config_id = r.config_id
JOIN config_items ci ON ci.id = r.config_id
WHERE r.deleted_at IS NULL;

CREATE VIEW changes_by_component AS
SELECT c.id, r.component_id, c.config_id, c.change_type, c.severity, c.source, c.summary,
       c.count, c.first_observed, c.created_at, c.external_created_by, c.created_by,
       ci.name AS config_name, ci.type AS config_type
FROM config_component_relationships r
JOIN config_changes c ON c.config_id = r.config_id
JOIN config_items ci ON ci.id = r.config_id
WHERE r.deleted_at IS NULL;

-- The items related to one item, up to max_depth hops, walking only items the rules
-- let the caller see (rules NULL: every item). Hard links are parent and child,
-- soft links config_relationships; outgoing is towards children and related_id,
-- incoming towards the parent and config_id. type_filter: outgoing, incoming or all;
-- incoming_relation and outgoing_relation: both, hard or soft.
CREATE FUNCTION quarterdeck_related_configs(
    root uuid, type_filter text, include_deleted boolean, max_depth integer,
    incoming_relation text, outgoing_relation text, rules jsonb)
RETURNS TABLE (id uuid, direction text, relation text, depth integer)
LANGUAGE sql STABLE AS $$
    WITH RECURSIVE walk(id, direction, relation, depth, trail) AS (
        SELECT root, NULL::text, NULL::text, 0, ARRAY[root]
        UNION ALL
        SELECT n.id, n.direction, n.relation, w.depth + 1, w.trail || n.id
        FROM walk w
        CROSS JOIN LATERAL (
            SELECT ci.id, 'outgoing'::text AS direction, 'parent'::text AS relation
            FROM config_items ci
            WHERE type_filter IN ('outgoing', 'all') AND outgoing_relation IN ('both', 'hard')
              AND (w.direction IS NULL OR w.direction = 'outgoing') AND ci.parent_id = w.id
            UNION ALL
            SELECT ci.id, 'incoming', 'parent'
            FROM config_items ci
            WHERE type_filter IN ('incoming', 'all') AND incoming_relation IN ('both', 'hard')
              AND (w.direction IS NULL OR w.direction = 'incoming')
              AND ci.id = (SELECT p.parent_id FROM config_items p WHERE p.id = w.id)
            UNION ALL
            SELECT r.related_id, 'outgoing', r.relation
            FROM config_relationships r
            WHERE type_filter IN ('outgoing', 'all') AND outgoing_relation IN ('both', 'soft')
              AND (w.direction IS NULL OR w.direction = 'outgoing')
              AND r.config_id = w.id AND r.deleted_at IS NULL
            UNION ALL
            SELECT r.config_id, 'incoming', r.relation
            FROM config_relationships r
            WHERE type_filter IN ('incoming', 'all') AND incoming_relation IN ('both', 'soft')
              AND (w.direction IS NULL OR w.direction = 'incoming')
              AND r.related_id = w.id AND r.deleted_at IS NULL
        ) n
        JOIN config_items target ON target.id = n.id
        WHERE w.depth < max_depth
          AND NOT n.id = ANY(w.trail)
          AND (include_deleted OR target.deleted_at IS NULL)
          AND (rules IS NULL
               OR quarterdeck_scope_allows(rules, target.tags, target.agent_id, target.name))
    )
    SELECT DISTINCT ON (walk.id) walk.id, walk.direction, walk.relation, walk.depth
    FROM walk
    WHERE walk.depth > 0
    ORDER BY walk.id, walk.depth
$$;
