-- The item's type on each of its changes, kept by triggers, so the changes
-- search filtered by config type reads that type's changes in the page's
-- order (created_at, then id) instead of visiting the item of every newer
-- change of any type.
ALTER TABLE config_changes ADD COLUMN config_type text;
UPDATE config_changes c SET config_type = ci.type FROM config_items ci WHERE ci.id = c.config_id;

CREATE FUNCTION quarterdeck_change_config_type() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT type INTO NEW.config_type FROM config_items WHERE id = NEW.config_id;
    RETURN NEW;
END
$$;
CREATE TRIGGER config_changes_config_type BEFORE INSERT OR UPDATE OF config_id ON config_changes
    FOR EACH ROW EXECUTE FUNCTION quarterdeck_change_config_type();

CREATE FUNCTION quarterdeck_item_type_to_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE config_changes SET config_type = NEW.type WHERE config_id = NEW.id;
    RETURN NULL;
END
$$;
CREATE TRIGGER config_items_type_to_changes AFTER UPDATE OF type ON config_items
    FOR EACH ROW WHEN (OLD.type IS DISTINCT FROM NEW.type)
    EXECUTE FUNCTION quarterdeck_item_type_to_changes();

CREATE INDEX config_changes_config_type_created_at_id_idx
    ON config_changes (config_type, created_at DESC, id DESC) INCLUDE (config_id, severity, change_type);
