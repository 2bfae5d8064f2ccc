//! What a person is granted: the permission rules that apply to them (their
//! own, their teams' and their roles', not deleted and not expired) and the
//! access scopes that limit what they see (their own and their teams'),
//! loaded together in one round trip on every authenticated request.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::Error;
use crate::rbac::{Action, Authorizer, Resource};

/// One allow or deny rule.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = PermissionRule)]
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
    /// The rows the rule is about, when it selects them (`spec.object` of a
    /// Permission resource; see `rbac::selector`).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub object_selector: Option<serde_json::Value>,
}

/// One live access scope of the person (`personal`) or of one of their teams.
#[derive(Debug, Clone, Deserialize)]
pub struct AccessScopeGrant {
    pub personal: bool,
    pub resources: Vec<String>,
    pub scopes: serde_json::Value,
}

/// One scope entry of an access scope: a row matches when all its tags
/// equal the row's, one of its agents is the row's agent, and its names list
/// the row's name or hold `*` (criteria not given are not checked).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ScopeRule {
    pub tags: BTreeMap<String, String>,
    pub agents: Vec<String>,
    pub names: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Grants {
    pub rules: Vec<Rule>,
    pub access_scopes: Vec<AccessScopeGrant>,
}

/// The channel announcing that a person's, team's, permission's, access
/// scope's or token's rows changed (migration 0048): whatever was derived
/// from them may be out of date.
pub const CHANGED_CHANNEL: &str = "quarterdeck_grants";

/// Select-list columns `rules` and `access_scopes` (JSON) for the person in
/// a relation named `me` with columns `id` and `roles`, so the lookup that
/// authenticates a request can load the grants in the same statement.
pub(crate) const COLUMNS: &str = "\
    (SELECT coalesce(json_agg(r), '[]'::json) FROM ( \
       SELECT id, subject_type, subject, object, action, deny, object_selector, \
              coalesce(playbook_id, canary_id, config_id, component_id, connection_id) AS resource_id \
       FROM permissions \
       WHERE deleted_at IS NULL AND (until IS NULL OR until > now()) AND ( \
             (subject_type = 'person' AND person_id = me.id) \
          OR (subject_type = 'team' AND team_id IN ( \
                SELECT m.team_id FROM team_members m JOIN teams t ON t.id = m.team_id AND t.deleted_at IS NULL \
                WHERE m.person_id = me.id)) \
          OR (subject_type = 'group' AND subject = ANY(me.roles)))) r) AS rules, \
    (SELECT coalesce(json_agg(s ORDER BY s.created_at, s.id), '[]'::json) FROM ( \
       SELECT a.person_id IS NOT NULL AS personal, a.resources, a.scopes, a.created_at, a.id \
       FROM access_scopes a \
       WHERE a.deleted_at IS NULL AND (a.person_id = me.id OR a.team_id IN ( \
             SELECT m.team_id FROM team_members m JOIN teams t ON t.id = m.team_id AND t.deleted_at IS NULL \
             WHERE m.person_id = me.id))) s) AS access_scopes";

/// The grants columns as decoded.
#[derive(sqlx::FromRow)]
pub(crate) struct GrantColumns {
    rules: Json<Vec<Rule>>,
    access_scopes: Json<Vec<AccessScopeGrant>>,
}

impl From<GrantColumns> for Grants {
    fn from(c: GrantColumns) -> Self {
        Grants {
            rules: c.rules.0,
            access_scopes: c.access_scopes.0,
        }
    }
}

pub async fn for_person(pool: &PgPool, person_id: Uuid, roles: &[String]) -> Result<Grants, Error> {
    let columns: GrantColumns = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM (SELECT $1::uuid AS id, $2::text[] AS roles) me"
    )))
    .bind(person_id)
    .bind(roles)
    .fetch_one(pool)
    .await?;
    Ok(columns.into())
}

/// How many live admins could still manage rights (permissions, access
/// scopes and people) with their current roles and rules.
pub async fn managing_admins(conn: &mut PgConnection) -> Result<usize, sqlx::Error> {
    let admins: Vec<(Vec<String>, Json<Vec<Rule>>)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT roles, rules FROM (SELECT me.roles, {COLUMNS} FROM people me \
         WHERE 'admin' = ANY(me.roles) AND me.deleted_at IS NULL) g"
    )))
    .fetch_all(&mut *conn)
    .await?;
    Ok(admins
        .into_iter()
        .filter(|(roles, Json(rules))| {
            let admin = Authorizer {
                roles: roles.clone(),
                rules: rules.clone(),
                token_scope: None,
            };
            [
                Resource::Permissions,
                Resource::AccessScopes,
                Resource::Identities,
                Resource::Rbac,
            ]
            .into_iter()
            .all(|r| admin.allows(r, Action::Update))
        })
        .count())
}

/// Why a change that would leave no admin able to manage rights is refused.
pub const LAST_ADMIN_MESSAGE: &str = "this change would leave no admin able to manage rights";
