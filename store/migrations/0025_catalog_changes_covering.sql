-- /api/catalog/changes filtered by severity, change type or source: the page and
-- its bounded count are chosen from these indexes alone (index-only scans), in
-- the page's order (created_at, then id), instead of fetching every candidate
-- change's row to read its item. They replace 0024's (column, created_at) ones.
DROP INDEX config_changes_change_type_created_at_idx;
DROP INDEX config_changes_severity_created_at_idx;
DROP INDEX config_changes_source_created_at_idx;
CREATE INDEX config_changes_change_type_created_at_id_idx
    ON config_changes (change_type, created_at DESC, id DESC) INCLUDE (config_id);
CREATE INDEX config_changes_severity_created_at_id_idx
    ON config_changes (severity, created_at DESC, id DESC) INCLUDE (config_id);
CREATE INDEX config_changes_source_created_at_id_idx
    ON config_changes (source, created_at DESC, id DESC) INCLUDE (config_id);
-- Which items a change's item filters keep (type, live or deleted), read from
-- the index alone for each candidate change.
CREATE INDEX config_items_id_type_deleted_idx ON config_items (id) INCLUDE (type, deleted_at);
