-- Every kind the operator reconciles keeps the custom resource's labels.
ALTER TABLE playbooks       ADD COLUMN labels jsonb NOT NULL DEFAULT '{}';
ALTER TABLE config_scrapers ADD COLUMN labels jsonb NOT NULL DEFAULT '{}';
ALTER TABLE permissions     ADD COLUMN labels jsonb NOT NULL DEFAULT '{}';
ALTER TABLE access_scopes   ADD COLUMN labels jsonb NOT NULL DEFAULT '{}';
