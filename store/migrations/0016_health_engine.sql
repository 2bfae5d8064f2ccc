-- The health check engine: Run Now requests, latency histograms in the rollups, and the
-- job history lists of the console.

-- Set by Run Now; the engine that clears it runs the check out of schedule.
ALTER TABLE checks ADD COLUMN run_requested_at timestamptz;
CREATE INDEX checks_run_requested_at_idx ON checks (run_requested_at) WHERE run_requested_at IS NOT NULL;

-- Latency histograms of 64 buckets: bucket i (0-based) counts runs that took at most
-- 1.25^i ms and more than 1.25^(i-1) ms (the last one is open-ended). Histograms add up,
-- so percentiles over any range come from the rollups, within 25 %.
CREATE FUNCTION qd_latency_bucket(ms integer) RETURNS integer
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN least(63, greatest(0, ceil(log(1.25, greatest(ms, 1)::numeric))::integer));

CREATE FUNCTION qd_histogram_add(h integer[], bucket integer) RETURNS integer[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN (SELECT array_agg(coalesce(h[i], 0) + CASE WHEN i = bucket + 1 THEN 1 ELSE 0 END ORDER BY i)
            FROM generate_series(1, 64) AS i);

CREATE FUNCTION qd_histogram_merge(a integer[], b integer[]) RETURNS integer[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN (SELECT array_agg(coalesce(a[i], 0) + coalesce(b[i], 0) ORDER BY i)
            FROM generate_series(1, 64) AS i);

CREATE AGGREGATE qd_histogram_sum(integer[]) (
    SFUNC = qd_histogram_merge,
    STYPE = integer[],
    INITCOND = '{}'
);

ALTER TABLE check_statuses_1h ADD COLUMN latency integer[] NOT NULL DEFAULT '{}';
ALTER TABLE check_statuses_1d ADD COLUMN latency integer[] NOT NULL DEFAULT '{}';
CREATE INDEX check_statuses_1h_created_at_idx ON check_statuses_1h (created_at);
CREATE INDEX check_statuses_1d_created_at_idx ON check_statuses_1d (created_at);

CREATE VIEW job_history_names AS
SELECT DISTINCT name FROM job_history;
