-- Who a credential is and what it may do changed: the API's cache of
-- authenticated tokens (console-api token_cache) forgets everything at once.
-- Delivered at commit, to every replica listening.
CREATE FUNCTION quarterdeck_grants_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('quarterdeck_grants', TG_TABLE_NAME);
    RETURN NULL;
END $$;

DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['people', 'teams', 'team_members', 'permissions', 'access_scopes'] LOOP
        EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I '
                       'FOR EACH STATEMENT EXECUTE FUNCTION quarterdeck_grants_changed()', t || '_grants_changed', t);
    END LOOP;
END $$;

-- A token's own use (last_used_at, an auto-renewed expiry) changes nothing it grants.
CREATE TRIGGER access_tokens_grants_changed AFTER UPDATE ON access_tokens
    FOR EACH ROW WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at
                       OR OLD.scope IS DISTINCT FROM NEW.scope
                       OR OLD.person_id IS DISTINCT FROM NEW.person_id
                       OR OLD.value IS DISTINCT FROM NEW.value
                       OR NEW.expires_at < OLD.expires_at)
    EXECUTE FUNCTION quarterdeck_grants_changed();

CREATE TRIGGER access_tokens_grants_removed AFTER DELETE OR TRUNCATE ON access_tokens
    FOR EACH STATEMENT EXECUTE FUNCTION quarterdeck_grants_changed();
