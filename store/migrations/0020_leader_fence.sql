-- Fencing of the operator's leader: each time a replica takes the leader
-- Lease it bumps the generation here, and every write it makes to
-- KubernetesCRD rows first holds that generation (hold_leadership). A
-- replica that lost the Lease without noticing still carries the old
-- generation, so the database refuses its writes.
CREATE TABLE operator_leadership (
    lease       text        PRIMARY KEY,
    holder      text        NOT NULL,
    generation  bigint      NOT NULL,
    acquired_at timestamptz NOT NULL DEFAULT now()
);

-- Raises SQLSTATE QDF01 unless `p_generation` is the lease's current
-- generation. The row lock (FOR SHARE) makes a takeover wait until the
-- writes already fenced by the old generation have committed.
CREATE FUNCTION hold_leadership(p_lease text, p_generation bigint) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM operator_leadership
     WHERE lease = p_lease AND generation = p_generation
       FOR SHARE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'stale leader: generation % of lease % is no longer current', p_generation, p_lease
            USING ERRCODE = 'QDF01';
    END IF;
END
$$;
