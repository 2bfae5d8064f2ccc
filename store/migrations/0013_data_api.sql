-- Support for the data API (/api/db/{relation}): access-scope matching and
-- the indexes its common queries need.

-- Whether a row is visible under access-scope rules. `rules` is a jsonb array of
-- {tags: {k: v}, agents: [..], names: [..]} (one entry per scope entry): the row is
-- visible when any entry matches; within an entry every criterion given must match:
--   tags   - all given tags equal the row's tags (row_tags @> tags);
--   agents - one given agent is the row's agent id (as text) or that agent's name;
--   names  - the row's name is listed, or the list holds '*'.
-- An entry with no criterion, or a rules value that is not an array, matches nothing.
CREATE FUNCTION quarterdeck_scope_allows(rules jsonb, row_tags jsonb, row_agent uuid, row_name text)
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce(bool_or(
               (e.has_tags OR e.has_agents OR e.has_names)
               AND (NOT e.has_tags OR coalesce(row_tags @> e.rule_tags, false))
               AND (NOT e.has_agents
                    OR coalesce(e.rule_agents ? row_agent::text, false)
                    OR coalesce(e.rule_agents ? (SELECT ag.name FROM agents ag WHERE ag.id = row_agent), false))
               AND (NOT e.has_names
                    OR e.rule_names ? '*'
                    OR coalesce(e.rule_names ? row_name, false))
           ), false)
    FROM (
        SELECT r -> 'tags'   AS rule_tags,
               r -> 'agents' AS rule_agents,
               r -> 'names'  AS rule_names,
               coalesce(jsonb_typeof(r -> 'tags') = 'object' AND r -> 'tags' <> '{}'::jsonb, false) AS has_tags,
               -- CASE, not AND: jsonb_array_length raises on non-arrays.
               CASE WHEN jsonb_typeof(r -> 'agents') = 'array' THEN jsonb_array_length(r -> 'agents') > 0 ELSE false END AS has_agents,
               CASE WHEN jsonb_typeof(r -> 'names') = 'array' THEN jsonb_array_length(r -> 'names') > 0 ELSE false END AS has_names
        FROM jsonb_array_elements(CASE WHEN jsonb_typeof(rules) = 'array' THEN rules ELSE '[]'::jsonb END) AS r
        WHERE jsonb_typeof(r) = 'object'
    ) e
$$;

-- The catalog list: type=eq.X&order=name (with or without deleted_at=is.null).
CREATE INDEX config_items_type_name_idx ON config_items (type, name);
