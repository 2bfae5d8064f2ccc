-- MCP sessions (decision 95): the Mcp-Session-Id an initialize issues, kept
-- here so that any replica of the console API serves the session's later
-- requests. A session belongs to the person who opened it; DELETE /mcp ends it.
CREATE TABLE mcp_sessions (
    id               uuid        PRIMARY KEY,
    person_id        uuid        NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    protocol_version text        NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    last_used_at     timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX mcp_sessions_person_id_idx ON mcp_sessions (person_id);
