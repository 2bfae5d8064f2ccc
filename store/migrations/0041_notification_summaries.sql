-- The notifications screens' views (decision 90): each rule with its send counts and
-- recipients, and each send with the names the history list shows.

-- The names of a rule's recipients (`to`, then `fallback`): the person's, team's or
-- playbook's name; for a custom service its name, else its connection reference, else
-- the scheme of its URL. Never the URL itself: webhook URLs may carry keys, and
-- custom_services is redacted for callers who do not write notifications.
CREATE FUNCTION quarterdeck_notification_recipients(n notifications) RETURNS text[]
LANGUAGE sql STABLE AS $$
    SELECT coalesce(array_agg(label ORDER BY ord) FILTER (WHERE label IS NOT NULL AND label <> ''), '{}')
    FROM (
        SELECT 1 AS ord, (SELECT p.name FROM people p WHERE p.id = n.person_id) AS label
        UNION ALL SELECT 2, (SELECT t.name FROM teams t WHERE t.id = n.team_id)
        UNION ALL SELECT 3, (SELECT pb.name FROM playbooks pb WHERE pb.id = n.playbook_id)
        UNION ALL SELECT 4, coalesce(s->>'name', s->>'connection',
                                     substring(coalesce(s->>'url', s->>'webhook') FROM '^([A-Za-z][A-Za-z0-9+.-]*)://'),
                                     CASE WHEN s ? 'email' THEN 'email' END)
            FROM jsonb_array_elements(CASE WHEN jsonb_typeof(n.custom_services) = 'array'
                                           THEN n.custom_services ELSE '[]' END) s
        UNION ALL SELECT 5, (SELECT p.name FROM people p WHERE p.id = n.fallback_person_id)
        UNION ALL SELECT 6, (SELECT t.name FROM teams t WHERE t.id = n.fallback_team_id)
        UNION ALL SELECT 7, (SELECT pb.name FROM playbooks pb WHERE pb.id = n.fallback_playbook_id)
    ) recipients
$$;

-- One row per rule not deleted, with its sends counted by status (Mission Control's
-- notifications_summary: sent, failed, pending, last sent, last failed, error).
CREATE VIEW notifications_summary AS
WITH sends AS (
    SELECT notification_id,
           count(*) FILTER (WHERE status = 'sent') AS sent,
           count(*) FILTER (WHERE status = 'failed') AS failed,
           count(*) FILTER (WHERE status = 'pending') AS pending,
           count(*) FILTER (WHERE status = 'silenced') AS silenced,
           max(created_at) FILTER (WHERE status = 'sent') AS last_sent,
           max(created_at) FILTER (WHERE status = 'failed') AS last_failed
    FROM notification_send_history
    GROUP BY notification_id
)
SELECT n.id, n.name, n.namespace, n.events, n.title, n.filter, n.person_id, n.team_id,
       n.playbook_id, n.repeat_interval, n.group_by, n.wait_for, n.source, n.error, n.error_at,
       n.created_by, n.created_at, n.updated_at,
       quarterdeck_notification_recipients(n) AS recipients,
       coalesce(s.sent, 0) AS sent, coalesce(s.failed, 0) AS failed,
       coalesce(s.pending, 0) AS pending, coalesce(s.silenced, 0) AS silenced,
       s.last_sent, s.last_failed
FROM notifications n
LEFT JOIN sends s ON s.notification_id = n.id
WHERE n.deleted_at IS NULL;

-- One row per send with the rule's name, the resource it was about (kind from the
-- source event, name, type, whether it is deleted), the recipient and the silence.
CREATE VIEW notification_send_history_summary AS
SELECT h.id, h.notification_id, n.name AS notification_name, n.namespace AS notification_namespace,
       h.status, h.source_event, h.resource_id,
       split_part(h.source_event, '.', 1) AS resource_kind,
       coalesce(chk.name, can.name, comp.name, cfg.name, inc.title) AS resource_name,
       coalesce(chk.type, comp.type, cfg.type, inc.type) AS resource_type,
       coalesce(chk.deleted_at, can.deleted_at, comp.deleted_at, cfg.deleted_at) AS resource_deleted_at,
       h.resource_health, h.resource_status,
       h.person_id, h.playbook_run_id,
       coalesce(person.name, run_playbook.name,
                array_to_string(quarterdeck_notification_recipients(n), ', ')) AS recipient,
       h.silenced_by, silence.name AS silenced_by_name,
       h.error, h.count, h.retries, h.first_observed, h.created_at
FROM notification_send_history h
JOIN notifications n ON n.id = h.notification_id
LEFT JOIN checks chk ON h.source_event LIKE 'check.%' AND chk.id = h.resource_id
LEFT JOIN canaries can ON h.source_event LIKE 'canary.%' AND can.id = h.resource_id
LEFT JOIN components comp ON h.source_event LIKE 'component.%' AND comp.id = h.resource_id
LEFT JOIN config_items cfg ON h.source_event LIKE 'config.%' AND cfg.id = h.resource_id
LEFT JOIN incidents inc ON h.source_event LIKE 'incident.%' AND inc.id = h.resource_id
LEFT JOIN people person ON person.id = h.person_id
LEFT JOIN playbook_runs run ON run.id = h.playbook_run_id
LEFT JOIN playbooks run_playbook ON run_playbook.id = run.playbook_id
LEFT JOIN notification_silences silence ON silence.id = h.silenced_by;
