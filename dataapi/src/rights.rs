//! Writes that hand out rights: permission rules, access scopes, team
//! membership and teams. A caller may make such a change only when it
//! already holds every right the change grants or takes back (Kubernetes
//! RBAC's `escalate` rule), and no change may leave the console without an
//! admin who can manage rights.
//!
//! Each written row is checked before and after the change, inside the
//! write's transaction on locked rows, so two writes cannot combine into a
//! row nobody checked:
//! - a permission rule: the caller holds every (resource, action) the rule
//!   names ([`Coverage::of_rule`]), whether it allows or denies, since
//!   removing a deny rule grants what it denied; for a rule with selectors,
//!   every action it names on every row of the kinds it selects, with no
//!   rule with selectors narrowing the caller there
//!   ([`Coverage::of_selector`]), so nobody hands out rows they cannot act on;
//! - an access scope: the caller is not itself restricted on any kind the
//!   scope covers (a scope decides what its subject sees, and a restricted
//!   caller cannot judge more than it sees); this also keeps a caller from
//!   removing or widening a scope that restricts it;
//! - a membership, and a team's deletion or restoration: the caller holds
//!   every right the team's rules name and is unrestricted on the kinds its
//!   scopes cover, since joining gains the rules and leaving sheds the
//!   scopes and deny rules.

use serde_json::{Map, Value};
use sqlx::types::Json;
use sqlx::{PgConnection, Postgres, Transaction};
use uuid::Uuid;

use super::error::RestError;
use super::scope::Visibility;
use super::{Caller, ScopeKind};
use quarterdeck_store::grants::{LAST_ADMIN_MESSAGE, Rule, managing_admins};
use quarterdeck_store::rbac::{Coverage, Resource};

/// Code of a write refused because it would grant rights the caller lacks.
pub const ESCALATION: &str = "EESCALATION";
/// Code of a write refused because no admin could manage rights after it.
pub const LAST_ADMIN: &str = "ELASTADMIN";

/// What kind of rights a relation's rows carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RightsGuard {
    Permission,
    AccessScope,
    TeamMember,
    Team,
}

fn refused(message: impl Into<String>) -> RestError {
    RestError::new(403, ESCALATION, message)
}

/// The resource kind a rule about one row is about, by the column naming it.
const RESOURCE_COLUMNS: &[(&str, Resource)] = &[
    ("playbook_id", Resource::Playbooks),
    ("canary_id", Resource::Canaries),
    ("config_id", Resource::Database),
    ("component_id", Resource::Topologies),
    ("connection_id", Resource::Connections),
];

fn text<'a>(row: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    row.get(key).and_then(Value::as_str)
}

fn uuid(row: &Map<String, Value>, key: &str) -> Option<Uuid> {
    text(row, key).and_then(|s| s.parse().ok())
}

fn live(row: &Map<String, Value>) -> bool {
    row.get("deleted_at").is_none_or(Value::is_null)
}

/// What a permissions row names.
fn rule_coverage(row: &Map<String, Value>) -> Coverage {
    let object = text(row, "object").filter(|o| !o.trim().is_empty());
    let kind = RESOURCE_COLUMNS
        .iter()
        .find(|(column, _)| row.get(*column).is_some_and(|v| !v.is_null()))
        .map(|&(_, kind)| kind);
    let action = text(row, "action").unwrap_or_default();
    match row.get("object_selector").filter(|s| !s.is_null()) {
        Some(selector) if object.is_none() && kind.is_none() => {
            Coverage::of_selector(selector, action)
        }
        _ => Coverage::of_rule(object, kind, action),
    }
}

fn rule_coverage_of(rule: &Rule) -> Coverage {
    // Grants load a rule about one row with its id only; any such rule names a
    // kind the caller must hold, and rules of teams are checked as written.
    match &rule.object_selector {
        Some(selector) if rule.object.is_none() && rule.resource_id.is_none() => {
            Coverage::of_selector(selector, &rule.action)
        }
        _ => Coverage::of_rule(rule.object.as_deref(), None, &rule.action),
    }
}

fn describe(row: &Map<String, Value>) -> String {
    let object = match text(row, "object") {
        Some(object) => object,
        None if row.get("object_selector").is_some_and(|s| !s.is_null()) => "selected rows",
        None => "a resource",
    };
    let action = text(row, "action").unwrap_or("");
    format!("{action} on {object}")
}

/// The access-scope kinds a `resources` list covers.
fn kinds(resources: Option<&Value>) -> Vec<ScopeKind> {
    let listed: Vec<&str> = resources
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    ScopeKind::ALL
        .into_iter()
        .filter(|k| listed.iter().any(|r| *r == "*" || *r == k.as_str()))
        .collect()
}

fn restricted_on(visibility: &Visibility, kinds: &[ScopeKind]) -> Option<ScopeKind> {
    kinds
        .iter()
        .copied()
        .find(|&k| visibility.rules(k).is_some())
}

/// Checks the rows before and after a write (either side may be empty).
pub(crate) async fn check(
    guard: RightsGuard,
    tx: &mut Transaction<'static, Postgres>,
    caller: &Caller,
    before: &[Map<String, Value>],
    after: &[Map<String, Value>],
) -> Result<(), RestError> {
    let images = before.iter().chain(after);
    match guard {
        RightsGuard::Permission => {
            for row in images {
                if !caller.authorizer.holds(&rule_coverage(row)) {
                    return Err(refused(format!(
                        "you cannot write a permission for {}: it names rights you do not hold",
                        describe(row)
                    )));
                }
            }
        }
        RightsGuard::AccessScope => {
            for row in images {
                if let Some(kind) = restricted_on(&caller.visibility, &kinds(row.get("resources")))
                {
                    return Err(refused(format!(
                        "you cannot change access scopes covering {}: access scopes restrict what you see of it",
                        kind.as_str()
                    )));
                }
            }
        }
        RightsGuard::TeamMember => {
            let teams: Vec<Uuid> = images.filter_map(|r| uuid(r, "team_id")).collect();
            check_teams(tx, caller, &teams).await?;
        }
        RightsGuard::Team => {
            // Only deleting or restoring a team changes what its members hold.
            let changed: Vec<Uuid> = before
                .iter()
                .filter(|b| {
                    let id = uuid(b, "id");
                    let now = after.iter().find(|a| uuid(a, "id") == id);
                    now.is_none_or(|a| live(a) != live(b))
                })
                .filter_map(|b| uuid(b, "id"))
                .collect();
            check_teams(tx, caller, &changed).await?;
        }
    }
    Ok(())
}

/// The caller must hold every right of the teams' rules and be unrestricted
/// on every kind their scopes cover.
async fn check_teams(
    tx: &mut PgConnection,
    caller: &Caller,
    teams: &[Uuid],
) -> Result<(), RestError> {
    if teams.is_empty() {
        return Ok(());
    }
    let rows: Vec<(String, Json<Vec<Rule>>, Vec<String>)> = sqlx::query_as(
        "SELECT t.name, \
           (SELECT coalesce(json_agg(json_build_object('id', p.id, 'subject_type', p.subject_type, \
                'subject', p.subject, 'object', p.object, 'action', p.action, 'deny', p.deny, 'object_selector', p.object_selector, \
                'resource_id', coalesce(p.playbook_id, p.canary_id, p.config_id, p.component_id, p.connection_id))), '[]'::json) \
            FROM permissions p WHERE p.team_id = t.id AND p.subject_type = 'team' AND p.deleted_at IS NULL), \
           ARRAY(SELECT array_to_string(a.resources, ',') FROM access_scopes a \
                 WHERE a.team_id = t.id AND a.deleted_at IS NULL) \
         FROM teams t WHERE t.id = ANY($1)",
    )
    .bind(teams)
    .fetch_all(&mut *tx)
    .await
    .map_err(RestError::from_sqlx)?;
    for (name, Json(rules), scopes) in rows {
        if let Some(rule) = rules
            .iter()
            .find(|r| !caller.authorizer.holds(&rule_coverage_of(r)))
        {
            return Err(refused(format!(
                "you cannot change the members of team {name}: its permission for {} on {} names rights you do not hold",
                rule.action,
                rule.object.as_deref().unwrap_or("a resource")
            )));
        }
        for resources in &scopes {
            let listed: Vec<Value> = resources
                .split(',')
                .filter(|s| !s.is_empty())
                .map(|s| Value::String(s.to_owned()))
                .collect();
            if let Some(kind) =
                restricted_on(&caller.visibility, &kinds(Some(&Value::Array(listed))))
            {
                return Err(refused(format!(
                    "you cannot change the members of team {name}: its access scopes cover {}, which access scopes restrict for you",
                    kind.as_str()
                )));
            }
        }
    }
    Ok(())
}

/// Refuses (409) a write that leaves no admin able to manage rights where
/// there was one before it.
pub(crate) async fn admins_remain(tx: &mut PgConnection, before: usize) -> Result<(), RestError> {
    if before > 0 && managing_admins(tx).await.map_err(RestError::from_sqlx)? == 0 {
        return Err(RestError::new(409, LAST_ADMIN, LAST_ADMIN_MESSAGE));
    }
    Ok(())
}
