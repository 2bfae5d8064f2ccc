-- quarterdeck_related_configs also returns via_ids: the items one hop nearer
-- the asked item (the asked item itself at depth 1) through which each item is
-- reached at its nearest depth, so a relationships graph can draw its links.
DROP FUNCTION quarterdeck_related_configs(uuid, text, boolean, integer, text, text, jsonb);

CREATE FUNCTION quarterdeck_related_configs(
    root uuid, type_filter text, include_deleted boolean, max_depth integer,
    incoming_relation text, outgoing_relation text, rules jsonb)
RETURNS TABLE (id uuid, direction text, relation text, depth integer, via_ids uuid[])
LANGUAGE sql STABLE AS $$
    WITH RECURSIVE walk(id, direction, relation, depth, via, trail) AS (
        SELECT root, NULL::text, NULL::text, 0, NULL::uuid, ARRAY[root]
        UNION ALL
        SELECT n.id, n.direction, n.relation, w.depth + 1, w.id, w.trail || n.id
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
    ),
    nearest AS (
        SELECT walk.*, min(walk.depth) OVER (PARTITION BY walk.id) AS nearest_depth
        FROM walk
        WHERE walk.depth > 0
    )
    SELECT nearest.id,
           (array_agg(nearest.direction ORDER BY nearest.direction DESC, nearest.relation))[1],
           (array_agg(nearest.relation ORDER BY nearest.direction DESC, nearest.relation))[1],
           nearest.depth,
           array_agg(DISTINCT nearest.via)
    FROM nearest
    WHERE nearest.depth = nearest.nearest_depth
    GROUP BY nearest.id, nearest.depth
$$;
