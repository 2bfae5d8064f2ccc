-- The topology call counts what lies under a component by the prefix of the
-- materialised path (dot-separated ancestor ids): a range in byte order.
CREATE INDEX components_path_idx ON components (path COLLATE "C") WHERE deleted_at IS NULL;
