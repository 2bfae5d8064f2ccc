-- Latency histograms end at their highest used bucket: most checks answer in well under a
-- second and use a third of the 64 buckets, so rollups read for the summary stay small.
CREATE OR REPLACE FUNCTION qd_histogram_add(h integer[], bucket integer) RETURNS integer[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN (SELECT array_agg(coalesce(h[i], 0) + CASE WHEN i = bucket + 1 THEN 1 ELSE 0 END ORDER BY i)
            FROM generate_series(1, greatest(bucket + 1, coalesce(cardinality(h), 0))) AS i);

CREATE OR REPLACE FUNCTION qd_histogram_merge(a integer[], b integer[]) RETURNS integer[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN (SELECT coalesce(array_agg(coalesce(a[i], 0) + coalesce(b[i], 0) ORDER BY i), '{}')
            FROM generate_series(1, greatest(coalesce(cardinality(a), 0), coalesce(cardinality(b), 0))) AS i);
