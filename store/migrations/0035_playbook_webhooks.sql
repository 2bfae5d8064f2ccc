-- Playbook webhooks (decision 82): /api/playbook/webhook/{path} finds the
-- live playbook whose spec.on.webhook.path is {path}, the oldest when several
-- Kubernetes CRDs name the same path. A console playbook (any source but
-- KubernetesCRD) is refused when it takes a path another live playbook has;
-- the check runs where the row is written, so every writer obeys it, and a
-- lock per path makes two writers of the same path take turns.

CREATE INDEX playbooks_webhook_path_idx ON playbooks ((spec #>> '{on,webhook,path}'), created_at)
    WHERE deleted_at IS NULL AND spec #>> '{on,webhook,path}' IS NOT NULL;

CREATE FUNCTION quarterdeck_playbook_webhook_path_unique() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    path text := NEW.spec #>> '{on,webhook,path}';
BEGIN
    IF path IS NULL OR NEW.deleted_at IS NOT NULL OR NEW.source = 'KubernetesCRD' THEN
        RETURN NEW;
    END IF;
    -- A playbook that keeps its path keeps it, even beside a CRD that took it since.
    IF TG_OP = 'UPDATE' AND OLD.deleted_at IS NULL
       AND OLD.spec #>> '{on,webhook,path}' IS NOT DISTINCT FROM path THEN
        RETURN NEW;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended('quarterdeck.playbook.webhook.path:' || path, 0));
    IF EXISTS (SELECT 1 FROM playbooks
               WHERE id <> NEW.id AND deleted_at IS NULL AND spec #>> '{on,webhook,path}' = path) THEN
        RAISE EXCEPTION 'spec.on.webhook.path: the webhook path % is used by another playbook', quote_literal(path)
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER playbooks_webhook_path_unique BEFORE INSERT OR UPDATE OF spec, deleted_at, source ON playbooks
    FOR EACH ROW EXECUTE FUNCTION quarterdeck_playbook_webhook_path_unique();
