//! Permission rules that apply to a person: theirs, their teams' and their
//! roles', not deleted and not expired.

use serde::Serialize;
use sqlx::PgPool;
use uuid::Uuid;

use crate::Error;

/// One allow or deny rule.
#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Rule {
    pub id: Uuid,
    pub subject_type: String,
    pub subject: Option<String>,
    /// A global object (`canaries`, `playbooks`, `*`, ...), when the rule is not about one resource.
    pub object: Option<String>,
    /// Comma-separated actions (`read`, `playbook:run`, `*`, ...).
    pub action: String,
    pub deny: bool,
    /// The one resource the rule is about, if any.
    pub resource_id: Option<Uuid>,
}

pub async fn for_person(
    pool: &PgPool,
    person_id: Uuid,
    roles: &[String],
) -> Result<Vec<Rule>, Error> {
    Ok(sqlx::query_as(
        "SELECT id, subject_type, subject, object, action, deny, \
                coalesce(playbook_id, canary_id, config_id, component_id, connection_id) AS resource_id \
         FROM permissions \
         WHERE deleted_at IS NULL AND (until IS NULL OR until > now()) AND ( \
               (subject_type = 'person' AND person_id = $1) \
            OR (subject_type = 'team' AND team_id IN (SELECT team_id FROM team_members WHERE person_id = $1)) \
            OR (subject_type = 'group' AND subject = ANY($2)))",
    )
    .bind(person_id)
    .bind(roles)
    .fetch_all(pool)
    .await?)
}
