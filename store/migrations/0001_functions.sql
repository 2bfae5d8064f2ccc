-- Shared helpers used by every later migration.
-- gen_random_uuid() is built in since PostgreSQL 13, so no extension is needed.

-- Keeps updated_at current on every UPDATE. Attached with a BEFORE UPDATE
-- trigger named <table>_set_updated_at to each table that has updated_at.
CREATE FUNCTION set_updated_at() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.updated_at := now();
    RETURN NEW;
END;
$$;
