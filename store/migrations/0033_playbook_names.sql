-- Live playbooks by name, for pickers and filters (the data API's playbook_names).
CREATE VIEW playbook_names AS
SELECT id, name, namespace, title, icon, category
FROM playbooks
WHERE deleted_at IS NULL;
