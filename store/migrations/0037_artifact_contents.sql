-- The content of artifacts the playbook engine collects, kept in the database
-- beside the artifacts table (which listings read without the bytes). The
-- engine caps one file and one action's files (decision 84.6).
CREATE TABLE artifact_contents (
    artifact_id uuid  PRIMARY KEY REFERENCES artifacts (id) ON DELETE CASCADE,
    content     bytea NOT NULL
);
