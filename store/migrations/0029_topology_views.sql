-- Views of the topology screens (Mission Control's names). Each keeps the
-- component's id so the data API scopes it like the component.

-- Pickers and breadcrumbs: live components by name.
CREATE VIEW component_names AS
SELECT id, name, type, icon, topology_id, parent_id
FROM components
WHERE deleted_at IS NULL;

-- The labels of live components, one row per component and label.
CREATE VIEW component_labels AS
SELECT c.id AS component_id, l.key, l.value
FROM components c
CROSS JOIN LATERAL jsonb_each_text(CASE WHEN jsonb_typeof(c.labels) = 'object' THEN c.labels ELSE '{}' END) AS l (key, value)
WHERE c.deleted_at IS NULL;

-- Live components that name where their logs are.
CREATE VIEW components_with_logs AS
SELECT id, name, type, icon, log_selectors
FROM components
WHERE deleted_at IS NULL
  AND log_selectors IS NOT NULL
  AND log_selectors NOT IN ('null', '[]', '{}');

-- The live checks linked to each live component.
CREATE VIEW checks_by_component AS
SELECT DISTINCT r.component_id, ch.id, ch.type, ch.name, ch.icon, ch.severity, ch.status, ch.canary_id
FROM check_component_relationships r
JOIN checks ch ON ch.id = r.check_id AND ch.deleted_at IS NULL
JOIN components c ON c.id = r.component_id AND c.deleted_at IS NULL
WHERE r.deleted_at IS NULL;
