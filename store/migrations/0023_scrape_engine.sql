-- The scrape engine: claiming scrapers through the database (several operator
-- replicas share them; each slot runs once), "scrape now", and the keys the
-- writer upserts by.

-- next_run: the next slot (NULL: never ran, due at once). lease_until: a claimed
-- run's end at the latest (its timeout and a margin for writing); no other
-- engine claims the scraper before, so one scraper never runs twice at once.
ALTER TABLE config_scrapers
    ADD COLUMN next_run         timestamptz,
    ADD COLUMN lease_until      timestamptz,
    ADD COLUMN run_requested_at timestamptz;

CREATE INDEX config_scrapers_next_run_idx ON config_scrapers (next_run) WHERE deleted_at IS NULL;

-- An item is one scraper's (type, first external id). Also serves resolving
-- parents and relationships by (type, external id).
CREATE UNIQUE INDEX config_items_type_external_id_scraper_key
    ON config_items (type, (external_id[1]), scraper_id);

-- One open insight per item and analyzer: a scrape updates it.
CREATE UNIQUE INDEX config_analysis_config_id_analyzer_key ON config_analysis (config_id, analyzer);

-- Stale analyses are pruned by when they were last seen.
CREATE INDEX config_analysis_last_observed_idx ON config_analysis (last_observed);

-- Background jobs that one replica runs at a time (the catalog's retention):
-- claimed by moving next_run forward in the claiming transaction.
CREATE TABLE scheduled_jobs (
    name     text        PRIMARY KEY,
    next_run timestamptz NOT NULL DEFAULT now()
);
