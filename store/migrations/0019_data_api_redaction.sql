-- Data API read hardening: redaction of credentials inside JSON values shown to
-- people who may not write them, and the per-response budgets of a GET.

-- Whether a JSON key names a credential (case, '_' and '-' ignored).
CREATE FUNCTION quarterdeck_secret_key(k text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN lower(regexp_replace(k, '[^A-Za-z0-9]', '', 'g'))
           ~ '(password|passwd|secret|token|apikey|bearer|authorization|credential|privatekey|accesskey|webhook)|key$';

-- A string with the credentials it embeds replaced: the user information of URLs
-- (scheme://user:pass@host), the query values of URLs, and key=value pairs of
-- connection strings (password=...; token=...), and HTTP credentials (Bearer ...).
CREATE FUNCTION quarterdeck_redact_text(s text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN regexp_replace(regexp_replace(
        CASE WHEN s ~ '[A-Za-z][A-Za-z0-9+.-]*://'
             THEN regexp_replace(
                      regexp_replace(s, '([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@\s]+@', '\1********@', 'g'),
                      '([?&][^=&#\s]+=)[^&#\s]*', '\1********', 'g')
             ELSE s END,
        '((password|passwd|pwd|secret|token|api_?key|access_?key|secret_?key)\s*=\s*)[^;&\s]*', '\1********', 'gi'),
        '\m(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+', '\1 ********', 'gi');

-- A JSON value as shown to someone who may not see its secrets: every string or
-- number under a credential key (quarterdeck_secret_key), or the `value` of a
-- {name, value} pair whose name is one (headers, env), becomes "********", other
-- strings lose the credentials they embed (quarterdeck_redact_text). `valueFrom`
-- is kept whole: it refers to a secret elsewhere, it holds none.
CREATE FUNCTION quarterdeck_redact(value jsonb, hidden boolean DEFAULT false) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    CASE jsonb_typeof(value)
    WHEN 'object' THEN
        RETURN (SELECT coalesce(jsonb_object_agg(k, CASE WHEN k = 'valueFrom' THEN v
                                                         ELSE quarterdeck_redact(v, hidden OR quarterdeck_secret_key(k)
                                                                                   OR (k = 'value' AND quarterdeck_secret_key(coalesce(value ->> 'name', ''))))
                                                         END),
                                '{}'::jsonb)
                FROM jsonb_each(value) AS e(k, v));
    WHEN 'array' THEN
        RETURN (SELECT coalesce(jsonb_agg(quarterdeck_redact(v, hidden) ORDER BY i), '[]'::jsonb)
                FROM jsonb_array_elements(value) WITH ORDINALITY AS a(v, i));
    WHEN 'string' THEN
        IF hidden THEN
            RETURN '"********"'::jsonb;
        END IF;
        RETURN to_jsonb(quarterdeck_redact_text(value #>> '{}'));
    WHEN 'number' THEN
        IF hidden THEN
            RETURN '"********"'::jsonb;
        END IF;
        RETURN value;
    ELSE
        RETURN value;
    END CASE;
END
$$;

-- Budgets of one data API statement, kept in transaction-local settings (a GET is
-- one statement in its own transaction). Raising aborts the statement before the
-- whole answer is built, and long before it reaches the API process.

-- Counts `n` more embedded rows (the rows of one to-many embed); QD001 past `cap`.
CREATE FUNCTION quarterdeck_rest_embedded(rows json, n bigint, cap bigint) RETURNS json
    LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    total bigint := coalesce(nullif(current_setting('quarterdeck.rest_embedded', true), ''), '0')::bigint + n;
BEGIN
    IF total > cap THEN
        RAISE EXCEPTION 'more than % embedded rows', cap USING ERRCODE = 'QD001';
    END IF;
    PERFORM set_config('quarterdeck.rest_embedded', total::text, true);
    RETURN rows;
END
$$;

-- Counts the bytes of one top-level row (its embeds included); QD002 past `cap`.
CREATE FUNCTION quarterdeck_rest_row(row_json json, cap bigint) RETURNS json
    LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    total bigint := coalesce(nullif(current_setting('quarterdeck.rest_bytes', true), ''), '0')::bigint
                    + octet_length(row_json::text);
BEGIN
    IF total > cap THEN
        RAISE EXCEPTION 'response larger than % bytes', cap USING ERRCODE = 'QD002';
    END IF;
    PERFORM set_config('quarterdeck.rest_bytes', total::text, true);
    RETURN row_json;
END
$$;
