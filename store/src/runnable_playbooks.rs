//! The playbooks that can run on a target (a config item, a check or a
//! component): those whose `spec.configs`, `spec.checks` or
//! `spec.components` resource selectors select it and whose CEL `filters`
//! (evaluated by the caller, which holds the CEL interpreter) all pass. The
//! target and the playbooks are read in SQL, each filtered by the caller's
//! access scopes; the selectors are matched here, against the one target.
//!
//! A selector matches when every field it gives holds: `id`, `name` (`*`
//! matches any text), `namespace` (the item's `namespace` tag), `agent` (an
//! id or name; `self` or `local` the local agent, `all` any), `scope` (the
//! item's scraper, by id, name or namespace/name), `types`, `statuses` and
//! `health` (lists; `!x` excludes, `*` matches any text), `tagSelector` and
//! `labelSelector` (Kubernetes label selectors on tags and labels),
//! `fieldSelector` (the same syntax on id, name, namespace, type, status,
//! health, config_class and agent) and `search` (the catalog's search
//! grammar, case-insensitive). A deleted item matches only with
//! `includeDeleted`. A selector giving none of these selects nothing; one
//! that does not parse selects nothing. Checks match as items with their
//! type, their status as status and health, their canary as scope and their
//! (else the canary's) namespace; components with their labels as tags and
//! their topology as scope.

use quarterdeck_crds::common::ResourceSelector;
use serde::Serialize;
use serde_json::{Map, Value};
use sqlx::PgPool;
use sqlx::types::Json;
use uuid::Uuid;

use crate::Error;
use crate::catalog_queries::search::{self, Term};
use crate::grants::{Rule, ScopeRule};
use crate::rbac::selector::{self as rule_selector, label_selector};
use crate::rbac::{Action, Authorizer, Kind, Requirement, Resource, Role, Selector};
use crate::tokens::{TokenAction, TokenObject};

/// A playbook as the item's Playbooks tab lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct RunnablePlaybook {
    pub id: Uuid,
    pub name: String,
    pub namespace: String,
    pub title: String,
    pub category: String,
    pub icon: Option<String>,
    pub description: Option<String>,
}

/// What a selector is matched against (a config item; the topology engine
/// reads checks and components into it too).
#[derive(Debug, Clone, Default, sqlx::FromRow)]
pub(crate) struct Item {
    id: Uuid,
    name: Option<String>,
    config_class: String,
    #[sqlx(rename = "type")]
    item_type: String,
    status: Option<String>,
    health: Option<String>,
    tags: Json<Map<String, Value>>,
    labels: Json<Map<String, Value>>,
    agent_id: Uuid,
    agent_name: Option<String>,
    scraper_id: Option<Uuid>,
    scraper_name: Option<String>,
    scraper_namespace: Option<String>,
    deleted: bool,
}

/// What a playbook runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    Config,
    Check,
    Component,
}

impl TargetKind {
    /// The spec's selector list and the name the target has in CEL and
    /// templates (`config`, `check`, `component`).
    pub fn key(self) -> &'static str {
        match self {
            TargetKind::Config => "config",
            TargetKind::Check => "check",
            TargetKind::Component => "component",
        }
    }

    fn selectors(self) -> &'static str {
        match self {
            TargetKind::Config => "configs",
            TargetKind::Check => "checks",
            TargetKind::Component => "components",
        }
    }
}

/// The access scopes that bear on targets and playbooks (`None`: every row).
#[derive(Debug, Clone, Copy, Default)]
pub struct Scopes<'a> {
    pub config: Option<&'a [ScopeRule]>,
    pub component: Option<&'a [ScopeRule]>,
    pub canary: Option<&'a [ScopeRule]>,
    pub playbook: Option<&'a [ScopeRule]>,
}

/// A target the caller sees.
#[derive(Debug, Clone)]
pub struct Target {
    pub kind: TargetKind,
    pub id: Uuid,
    pub name: Option<String>,
    /// The row as CEL filters and templates see it (`config.name`,
    /// `check.status`, `component.labels`, ...).
    pub context: Value,
    item: Item,
}

impl Target {
    /// Whether one of `selectors` selects it, with the matcher of playbooks' selectors.
    pub fn selected_by(&self, selectors: &[ResourceSelector]) -> bool {
        selectors.iter().any(|s| selects(s, &self.item))
    }
}

#[derive(sqlx::FromRow)]
struct TargetRow {
    context: Json<Value>,
    #[sqlx(flatten)]
    item: Item,
}

/// A playbook the caller sees, with its spec.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Playbook {
    #[sqlx(flatten)]
    pub summary: RunnablePlaybook,
    pub spec: Json<Value>,
    pub labels: Json<Map<String, Value>>,
}

impl Playbook {
    /// Whether the playbook names targets of any kind.
    pub fn has_selectors(&self) -> bool {
        ["configs", "checks", "components"]
            .iter()
            .any(|k| self.spec.0.get(k).is_some_and(|v| !v.is_null()))
    }

    /// Its CEL `filters`.
    pub fn filters(&self) -> Vec<String> {
        self.spec
            .0
            .get("filters")
            .and_then(Value::as_array)
            .map(|f| {
                f.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether its selectors of the target's kind select the target.
    pub fn selects(&self, target: &Target) -> bool {
        self.spec
            .0
            .get(target.kind.selectors())
            .is_some_and(|selectors| selects_any(selectors, &target.item))
    }
}

/// A right on one playbook beside the role matrix's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaybookRight {
    Run,
    Approve,
}

impl PlaybookRight {
    pub fn as_str(self) -> &'static str {
        match self {
            PlaybookRight::Run => "playbook:run",
            PlaybookRight::Approve => "playbook:approve",
        }
    }

    fn token_action(self) -> TokenAction {
        match self {
            PlaybookRight::Run => TokenAction::PlaybookRun,
            PlaybookRight::Approve => TokenAction::PlaybookApprove,
        }
    }

    /// What the role matrix reads it as: running creates a run, approving
    /// changes one.
    fn matrix_action(self) -> Action {
        match self {
            PlaybookRight::Run => Action::Create,
            PlaybookRight::Approve => Action::Update,
        }
    }
}

/// Whether a rule's actions name the right (or `playbook:*`, `*`).
fn names_right(rule: &Rule, right: PlaybookRight) -> bool {
    rule.action
        .split(',')
        .map(str::trim)
        .any(|a| a == "*" || a == "playbook:*" || a == right.as_str())
}

/// Whether a rule is about every playbook.
fn about_all(rule: &Rule) -> bool {
    rule.resource_id.is_none()
        && rule
            .object
            .as_deref()
            .is_some_and(|o| o == "*" || o == "playbooks")
}

/// Whether the caller's roles write playbook runs (admin, editor) and its
/// token's scope, if any, names the right on `playbooks`.
fn by_role_in_scope(authorizer: &Authorizer, right: PlaybookRight) -> (bool, bool) {
    let by_role = authorizer
        .roles
        .iter()
        .filter_map(|r| r.parse::<Role>().ok())
        .any(|role| role.allows(Resource::PlaybookRuns, right.matrix_action()));
    let in_scope = authorizer.token_scope.as_ref().is_none_or(|grants| {
        grants.iter().any(|g| {
            g.object == TokenObject::Playbooks
                && g.actions.iter().any(|a| {
                    matches!(a, TokenAction::All | TokenAction::PlaybookAll)
                        || *a == right.token_action()
                })
        })
    });
    (by_role, in_scope)
}

/// Whether the caller holds `right` on the playbook: a deny rule naming the
/// right (or `playbook:*`, `*`) on all playbooks, on this one (by id) or on
/// playbooks its selector selects refuses it; else a role that writes
/// playbook runs (admin, editor) or an allow rule of the same reach grants
/// it; a token's scope must name the right on `playbooks` as well.
pub fn holds(authorizer: &Authorizer, playbook: &Playbook, right: PlaybookRight) -> bool {
    let about = |rule: &Rule| match (&rule.resource_id, &rule.object, &rule.object_selector) {
        (Some(id), _, _) => *id == playbook.summary.id,
        (None, Some(_), _) => about_all(rule),
        (None, None, Some(selector)) => match rule_selector::parse(selector) {
            Ok(selected) => selected
                .iter()
                .filter(|(kind, _)| *kind == Kind::Playbook)
                .any(|(_, selectors)| selectors.iter().any(|s| rule_selects(s, playbook))),
            // A deny that does not parse refuses; an allow grants nothing.
            Err(_) => rule.deny,
        },
        (None, None, None) => false,
    };
    let matching = || {
        authorizer
            .rules
            .iter()
            .filter(|r| names_right(r, right) && about(r))
    };
    if matching().any(|r| r.deny) {
        return false;
    }
    let (by_role, in_scope) = by_role_in_scope(authorizer, right);
    (by_role || matching().any(|r| !r.deny)) && in_scope
}

/// Whether the caller may hold `right` on some playbook (before the
/// playbook is known): by role or an allow rule naming it, unless a deny
/// rule refuses it on every playbook or the token's scope leaves it out.
pub fn holds_on_some(authorizer: &Authorizer, right: PlaybookRight) -> bool {
    let rules = || authorizer.rules.iter().filter(|r| names_right(r, right));
    if rules().any(|r| r.deny && about_all(r)) {
        return false;
    }
    let (by_role, in_scope) = by_role_in_scope(authorizer, right);
    (by_role || rules().any(|r| !r.deny)) && in_scope
}

/// Whether a permission rule's selector selects the playbook (what the data
/// API matches in SQL, on the one row).
fn rule_selects(s: &Selector, playbook: &Playbook) -> bool {
    let p = &playbook.summary;
    let label = |k: &str| tag(&playbook.labels, k);
    s.id.as_ref().is_none_or(|id| *id == p.id.to_string())
        && s.name.as_ref().is_none_or(|n| n == "*" || *n == p.name)
        && s.namespace.as_ref().is_none_or(|ns| *ns == p.namespace)
        && s.agent.as_ref().is_none_or(|a| {
            matches!(a.as_str(), "self" | "local") || *a == crate::LOCAL_AGENT_ID.to_string()
        })
        && requirements_of_hold(&s.tags, label)
        && requirements_of_hold(&s.labels, label)
        && s.types.is_empty()
}

fn rules_json(rules: Option<&[ScopeRule]>) -> Option<Json<&[ScopeRule]>> {
    rules.map(Json)
}

/// The target when the caller sees it (a check through its canary).
pub async fn target(
    pool: &PgPool,
    scopes: Scopes<'_>,
    kind: TargetKind,
    id: Uuid,
) -> Result<Option<Target>, Error> {
    let (sql, rules) = match kind {
        TargetKind::Config => (
            "SELECT to_jsonb(ci) - 'tags_values' AS context, \
                    ci.id, ci.name, ci.config_class, ci.type, ci.status, ci.health, \
                    coalesce(ci.tags, '{}') AS tags, coalesce(ci.labels, '{}') AS labels, \
                    ci.agent_id, ag.name AS agent_name, ci.scraper_id, s.name AS scraper_name, \
                    s.namespace AS scraper_namespace, ci.deleted_at IS NOT NULL AS deleted \
             FROM config_items ci \
             LEFT JOIN agents ag ON ag.id = ci.agent_id \
             LEFT JOIN config_scrapers s ON s.id = ci.scraper_id \
             WHERE ci.id = $1 \
               AND ($2::jsonb IS NULL OR quarterdeck_scope_allows($2, ci.tags, ci.agent_id, ci.name))",
            scopes.config,
        ),
        TargetKind::Check => (
            "SELECT to_jsonb(c) || jsonb_build_object('canary_name', ca.name, \
                                                     'canary_namespace', ca.namespace) AS context, \
                    c.id, c.name, c.type AS config_class, c.type, c.status, c.status AS health, \
                    jsonb_build_object('namespace', coalesce(c.namespace, ca.namespace)) AS tags, \
                    coalesce(c.labels, '{}') AS labels, c.agent_id, ag.name AS agent_name, \
                    ca.id AS scraper_id, ca.name AS scraper_name, ca.namespace AS scraper_namespace, \
                    (c.deleted_at IS NOT NULL OR ca.deleted_at IS NOT NULL) AS deleted \
             FROM checks c \
             JOIN canaries ca ON ca.id = c.canary_id \
             LEFT JOIN agents ag ON ag.id = c.agent_id \
             WHERE c.id = $1 \
               AND ($2::jsonb IS NULL OR quarterdeck_scope_allows($2, ca.labels, ca.agent_id, ca.name))",
            scopes.canary,
        ),
        TargetKind::Component => (
            "SELECT to_jsonb(c) AS context, \
                    c.id, c.name, coalesce(c.type, '') AS config_class, coalesce(c.type, '') AS type, \
                    c.status, c.health, coalesce(c.labels, '{}') AS tags, coalesce(c.labels, '{}') AS labels, \
                    c.agent_id, ag.name AS agent_name, t.id AS scraper_id, t.name AS scraper_name, \
                    t.namespace AS scraper_namespace, c.deleted_at IS NOT NULL AS deleted \
             FROM components c \
             LEFT JOIN topologies t ON t.id = c.topology_id \
             LEFT JOIN agents ag ON ag.id = c.agent_id \
             WHERE c.id = $1 \
               AND ($2::jsonb IS NULL OR quarterdeck_scope_allows($2, c.labels, c.agent_id, c.name))",
            scopes.component,
        ),
    };
    let row: Option<TargetRow> = sqlx::query_as(sql)
        .bind(id)
        .bind(rules_json(rules))
        .fetch_optional(pool)
        .await?;
    Ok(row.map(|row| Target {
        kind,
        id,
        name: row.item.name.clone(),
        context: row.context.0,
        item: row.item,
    }))
}

pub(crate) const PLAYBOOK_COLUMNS: &str = "id, name, namespace, title, category, icon, description, spec, coalesce(labels, '{}') AS labels";

/// A live playbook the caller sees.
pub async fn playbook(
    pool: &PgPool,
    playbook_rules: Option<&[ScopeRule]>,
    id: Uuid,
) -> Result<Option<Playbook>, Error> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {PLAYBOOK_COLUMNS} FROM playbooks \
         WHERE id = $1 AND deleted_at IS NULL \
           AND ($2::jsonb IS NULL OR quarterdeck_scope_allows($2, labels, $3, name))"
    )))
    .bind(id)
    .bind(rules_json(playbook_rules))
    .bind(crate::LOCAL_AGENT_ID)
    .fetch_optional(pool)
    .await?)
}

/// The live playbook whose `spec.on.webhook.path` is `path`: the oldest
/// when several Kubernetes CRDs name it (a console playbook cannot take a
/// path in use: migration 0035).
pub async fn by_webhook_path(pool: &PgPool, path: &str) -> Result<Option<Playbook>, Error> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {PLAYBOOK_COLUMNS} FROM playbooks \
         WHERE deleted_at IS NULL AND spec #>> '{{on,webhook,path}}' = $1 \
         ORDER BY created_at, id LIMIT 1"
    )))
    .bind(path)
    .fetch_optional(pool)
    .await?)
}

/// The playbooks the caller sees whose selectors select the target (with no
/// target: that have no selectors) and for which `filters_pass` holds, by
/// title.
pub async fn for_target(
    pool: &PgPool,
    playbook_rules: Option<&[ScopeRule]>,
    target: Option<&Target>,
    filters_pass: impl Fn(&Playbook) -> bool,
) -> Result<Vec<RunnablePlaybook>, Error> {
    let candidates: Vec<Playbook> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {PLAYBOOK_COLUMNS} FROM playbooks \
         WHERE deleted_at IS NULL AND ($3::text IS NULL OR jsonb_typeof(spec -> $3) = 'array') \
           AND ($1::jsonb IS NULL OR quarterdeck_scope_allows($1, labels, $2, name)) \
         ORDER BY title, name, id"
    )))
    .bind(rules_json(playbook_rules))
    .bind(crate::LOCAL_AGENT_ID)
    .bind(target.map(|t| t.kind.selectors()))
    .fetch_all(pool)
    .await?;
    Ok(candidates
        .into_iter()
        .filter(|p| match target {
            Some(target) => p.selects(target),
            None => !p.has_selectors(),
        })
        .filter(|p| filters_pass(p))
        .map(|p| p.summary)
        .collect())
}

/// A row a run names, with its name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Named {
    pub id: Uuid,
    pub name: Option<String>,
}

/// A run's playbook and the names of what it ran on and who started it.
#[derive(Debug, Clone)]
pub struct VisibleRun {
    pub playbook: Playbook,
    pub config: Option<Named>,
    pub check: Option<Named>,
    pub component: Option<Named>,
    pub created_by: Option<Named>,
}

#[derive(sqlx::FromRow)]
struct VisibleRunRow {
    #[sqlx(flatten)]
    playbook: Playbook,
    config_id: Option<Uuid>,
    config_name: Option<String>,
    check_id: Option<Uuid>,
    check_name: Option<String>,
    component_id: Option<Uuid>,
    component_name: Option<String>,
    created_by: Option<Uuid>,
    created_by_name: Option<String>,
}

/// The run when the caller sees it: its playbook (deleted or not) and each
/// target it names within the caller's access scopes, as the data API's
/// `playbook_runs` relation shows runs. The playbook's spec is the run's
/// snapshot, its credentials redacted unless `reveal`.
pub async fn visible_run(
    pool: &PgPool,
    scopes: Scopes<'_>,
    run_id: Uuid,
    reveal: bool,
) -> Result<Option<VisibleRun>, Error> {
    let row: Option<VisibleRunRow> = sqlx::query_as(
        "SELECT p.id, p.name, p.namespace, p.title, p.category, p.icon, p.description, \
                CASE WHEN $7 THEN r.spec ELSE quarterdeck_redact(r.spec) END AS spec, \
                coalesce(p.labels, '{}') AS labels, \
                r.config_id, ci.name AS config_name, r.check_id, c.name AS check_name, \
                r.component_id, co.name AS component_name, \
                r.created_by, pe.name AS created_by_name \
         FROM playbook_runs r \
         JOIN playbooks p ON p.id = r.playbook_id \
         LEFT JOIN config_items ci ON ci.id = r.config_id \
         LEFT JOIN checks c ON c.id = r.check_id \
         LEFT JOIN canaries ca ON ca.id = c.canary_id \
         LEFT JOIN components co ON co.id = r.component_id \
         LEFT JOIN people pe ON pe.id = r.created_by \
         WHERE r.id = $1 \
           AND ($2::jsonb IS NULL OR quarterdeck_scope_allows($2, p.labels, $6, p.name)) \
           AND (r.config_id IS NULL OR $3::jsonb IS NULL \
                OR quarterdeck_scope_allows($3, ci.tags, ci.agent_id, ci.name)) \
           AND (r.check_id IS NULL OR $4::jsonb IS NULL \
                OR quarterdeck_scope_allows($4, ca.labels, ca.agent_id, ca.name)) \
           AND (r.component_id IS NULL OR $5::jsonb IS NULL \
                OR quarterdeck_scope_allows($5, co.labels, co.agent_id, co.name))",
    )
    .bind(run_id)
    .bind(rules_json(scopes.playbook))
    .bind(rules_json(scopes.config))
    .bind(rules_json(scopes.canary))
    .bind(rules_json(scopes.component))
    .bind(crate::LOCAL_AGENT_ID)
    .bind(reveal)
    .fetch_optional(pool)
    .await?;
    let named = |id: Option<Uuid>, name: Option<String>| id.map(|id| Named { id, name });
    Ok(row.map(|r| VisibleRun {
        playbook: r.playbook,
        config: named(r.config_id, r.config_name),
        check: named(r.check_id, r.check_name),
        component: named(r.component_id, r.component_name),
        created_by: named(r.created_by, r.created_by_name),
    }))
}

/// One approval of a run.
#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Approval {
    pub person_id: Option<Uuid>,
    pub person_name: Option<String>,
    pub person_email: Option<String>,
    /// Set when the approval counts for a listed team.
    pub team_id: Option<Uuid>,
    pub team_name: Option<String>,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

/// A run's approvals, oldest first.
pub async fn approvals(pool: &PgPool, run_id: Uuid) -> Result<Vec<Approval>, Error> {
    Ok(sqlx::query_as(
        "SELECT a.person_id, pe.name AS person_name, pe.email AS person_email, \
                a.team_id, t.name AS team_name, a.created_at \
         FROM playbook_approvals a \
         LEFT JOIN people pe ON pe.id = a.person_id \
         LEFT JOIN teams t ON t.id = a.team_id \
         WHERE a.run_id = $1 ORDER BY a.created_at, a.id",
    )
    .bind(run_id)
    .fetch_all(pool)
    .await?)
}

/// Whether the person is one of the run's approvers: listed by email or a
/// member of a listed team.
pub async fn is_approver(pool: &PgPool, spec: &Value, person_id: Uuid) -> Result<bool, Error> {
    let approvers = spec.pointer("/approval/approvers");
    let list = |key: &str, lower: bool| -> Vec<String> {
        approvers
            .and_then(|a| a.get(key))
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|s| {
                        if lower {
                            s.trim().to_lowercase()
                        } else {
                            s.trim().to_owned()
                        }
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    Ok(sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM people WHERE id = $1 AND lower(email) = ANY($2)) \
             OR EXISTS (SELECT 1 FROM teams t JOIN team_members m ON m.team_id = t.id \
                        WHERE m.person_id = $1 AND t.deleted_at IS NULL AND t.name = ANY($3))",
    )
    .bind(person_id)
    .bind(list("people", true))
    .bind(list("teams", false))
    .fetch_one(pool)
    .await?)
}

/// Whether any of a playbook's `spec.configs` selectors selects the item.
fn selects_any(configs: &Value, item: &Item) -> bool {
    configs.as_array().is_some_and(|selectors| {
        selectors.iter().any(|s| {
            serde_json::from_value::<ResourceSelector>(s.clone()).is_ok_and(|s| selects(&s, item))
        })
    })
}

pub(crate) fn selects(s: &ResourceSelector, item: &Item) -> bool {
    let criteria = [
        s.id.is_some(),
        s.name.is_some(),
        s.namespace.is_some(),
        s.agent.is_some(),
        s.scope.is_some(),
        s.search.is_some(),
        s.tag_selector.is_some(),
        s.label_selector.is_some(),
        s.field_selector.is_some(),
        s.health.is_some(),
        s.types.as_ref().is_some_and(|t| !t.is_empty()),
        s.statuses.as_ref().is_some_and(|t| !t.is_empty()),
    ];
    if !criteria.contains(&true) || (item.deleted && s.include_deleted != Some(true)) {
        return false;
    }
    let split = |text: &str| -> Vec<String> {
        text.split(',')
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
            .collect()
    };
    s.id.as_ref().is_none_or(|id| *id == item.id.to_string())
        && s.name
            .as_ref()
            .is_none_or(|n| glob(n, item.name.as_deref().unwrap_or_default(), false))
        && s.namespace
            .as_ref()
            .is_none_or(|ns| tag(&item.tags, "namespace").as_deref() == Some(ns.as_str()))
        && s.agent.as_ref().is_none_or(|a| agent_is(item, a))
        && s.scope.as_ref().is_none_or(|scope| scraper_is(item, scope))
        && s.types
            .as_ref()
            .is_none_or(|t| in_list(t, Some(&item.item_type)))
        && s.statuses
            .as_ref()
            .is_none_or(|t| in_list(t, item.status.as_deref()))
        && s.health
            .as_ref()
            .is_none_or(|h| in_list(&split(h), Some(item.health.as_deref().unwrap_or("unknown"))))
        && s.tag_selector
            .as_ref()
            .is_none_or(|t| requirements_hold(t, |k| tag(&item.tags, k)))
        && s.label_selector
            .as_ref()
            .is_none_or(|t| requirements_hold(t, |k| tag(&item.labels, k)))
        && s.field_selector
            .as_ref()
            .is_none_or(|t| requirements_hold(t, |k| field(item, k)))
        && s.search.as_ref().is_none_or(|t| search_holds(t, item))
}

/// A tag's or label's value as text.
fn tag(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).map(|v| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

/// `*` in the pattern matches any text; the rest must match exactly (or
/// case-insensitively).
fn glob(pattern: &str, text: &str, ignore_case: bool) -> bool {
    if ignore_case {
        quarterdeck_crds::glob::matches(&pattern.to_lowercase(), &text.to_lowercase())
    } else {
        quarterdeck_crds::glob::matches(pattern, text)
    }
}

/// A list of values where `!x` excludes: the value must match no excluded
/// entry and, if any entry includes, one of those.
fn in_list(list: &[String], value: Option<&str>) -> bool {
    let value = value.unwrap_or_default();
    let (excluded, included): (Vec<&String>, Vec<&String>) =
        list.iter().partition(|v| v.starts_with('!'));
    !excluded.iter().any(|v| glob(&v[1..], value, false))
        && (included.is_empty() || included.iter().any(|v| glob(v, value, false)))
}

fn agent_is(item: &Item, agent: &str) -> bool {
    match agent {
        "all" => true,
        "self" | "local" => item.agent_id == crate::LOCAL_AGENT_ID,
        other => item.agent_id.to_string() == other || item.agent_name.as_deref() == Some(other),
    }
}

fn scraper_is(item: &Item, scope: &str) -> bool {
    let by_name = match (&item.scraper_namespace, &item.scraper_name) {
        (Some(ns), Some(name)) => scope == format!("{ns}/{name}") || scope == name,
        (None, Some(name)) => scope == name,
        _ => false,
    };
    by_name || item.scraper_id.is_some_and(|id| id.to_string() == scope)
}

/// The fields `fieldSelector` and `search` read by name.
fn field(item: &Item, key: &str) -> Option<String> {
    match key {
        "id" => Some(item.id.to_string()),
        "name" => item.name.clone(),
        "namespace" => tag(&item.tags, "namespace"),
        "type" => Some(item.item_type.clone()),
        "status" => item.status.clone(),
        "health" => item.health.clone(),
        "config_class" => Some(item.config_class.clone()),
        "agent" => item.agent_name.clone(),
        _ => None,
    }
}

/// Kubernetes meaning: `!=` and `notin` hold when the key is absent.
fn requirements_hold(text: &str, value: impl Fn(&str) -> Option<String>) -> bool {
    label_selector(text).is_ok_and(|requirements| requirements_of_hold(&requirements, value))
}

fn requirements_of_hold(
    requirements: &[Requirement],
    value: impl Fn(&str) -> Option<String>,
) -> bool {
    requirements.iter().all(|r| match r {
        Requirement::Equals(k, v) => value(k).as_deref() == Some(v.as_str()),
        Requirement::NotEquals(k, v) => value(k).as_deref() != Some(v.as_str()),
        Requirement::In(k, vs) => value(k).is_some_and(|x| vs.contains(&x)),
        Requirement::NotIn(k, vs) => value(k).is_none_or(|x| !vs.contains(&x)),
        Requirement::Exists(k) => value(k).is_some(),
        Requirement::Absent(k) => value(k).is_none(),
    })
}

/// The search grammar as `/api/resources/search` reads it: known fields by
/// name, any other key a tag; values case-insensitive with `*` wildcards.
fn search_holds(text: &str, item: &Item) -> bool {
    let Ok(terms) = search::parse(text) else {
        return false;
    };
    terms.iter().all(
        |Term {
             key,
             negated,
             values,
         }| {
            let value = match key.as_str() {
                "id" | "name" | "namespace" | "type" | "status" | "health" | "agent" => {
                    field(item, key)
                }
                other => tag(&item.tags, other),
            };
            let found = value.is_some_and(|v| values.iter().any(|p| glob(p, &v, true)));
            found != *negated
        },
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pod() -> Item {
        let map = |v: Value| Json(v.as_object().cloned().unwrap_or_default());
        Item {
            id: Uuid::from_u128(7),
            name: Some("web-1".into()),
            config_class: "Pod".into(),
            item_type: "Kubernetes::Pod".into(),
            status: Some("Running".into()),
            health: Some("healthy".into()),
            tags: map(json!({"namespace": "shop", "cluster": "prod"})),
            labels: map(json!({"app": "web"})),
            agent_id: crate::LOCAL_AGENT_ID,
            agent_name: None,
            scraper_id: Some(Uuid::from_u128(9)),
            scraper_name: Some("kube".into()),
            scraper_namespace: Some("default".into()),
            deleted: false,
        }
    }

    fn selects_json(selector: Value, item: &Item) -> bool {
        selects_any(&json!([selector]), item)
    }

    #[test]
    fn every_given_field_must_hold() {
        let item = pod();
        for selector in [
            json!({"types": ["Kubernetes::Pod"]}),
            json!({"types": ["Kubernetes::*"], "namespace": "shop"}),
            json!({"types": ["!Kubernetes::Node"]}),
            json!({"name": "web-*", "statuses": ["Running"]}),
            json!({"id": item.id.to_string()}),
            json!({"health": "healthy,warning"}),
            json!({"tagSelector": "cluster=prod", "labelSelector": "app in (web,api)"}),
            json!({"fieldSelector": "type=Kubernetes::Pod,config_class!=Node"}),
            json!({"agent": "self", "scope": "default/kube"}),
            json!({"scope": Uuid::from_u128(9).to_string()}),
            json!({"search": "name=WEB* type=kubernetes::pod cluster=prod"}),
            json!({"search": "health!=unhealthy"}),
        ] {
            assert!(selects_json(selector.clone(), &item), "{selector}");
        }
        for selector in [
            json!({}),
            json!({"types": ["Kubernetes::Node"]}),
            json!({"types": ["Kubernetes::Pod"], "namespace": "other"}),
            json!({"types": ["!Kubernetes::*"]}),
            json!({"name": "api-*"}),
            json!({"health": "unhealthy"}),
            json!({"tagSelector": "cluster=dev"}),
            json!({"labelSelector": "!app"}),
            json!({"fieldSelector": "status=Pending"}),
            json!({"agent": "edge"}),
            json!({"scope": "other"}),
            json!({"search": "name=api"}),
            json!({"search": "name=\"open"}),
            json!({"tagSelector": "a b"}),
            json!({"types": "not a list"}),
        ] {
            assert!(!selects_json(selector.clone(), &item), "{selector}");
        }
    }

    #[test]
    fn a_deleted_item_only_with_include_deleted() {
        let item = Item {
            deleted: true,
            ..pod()
        };
        assert!(!selects_json(json!({"types": ["Kubernetes::Pod"]}), &item));
        assert!(selects_json(
            json!({"types": ["Kubernetes::Pod"], "includeDeleted": true}),
            &item
        ));
    }

    #[test]
    fn any_selector_of_the_list() {
        let item = pod();
        assert!(selects_any(
            &json!([{"types": ["Kubernetes::Node"]}, {"name": "web-1"}]),
            &item
        ));
        assert!(!selects_any(&json!([]), &item));
        assert!(!selects_any(&json!({"name": "web-1"}), &item));
    }

    #[test]
    fn globs() {
        assert!(glob("*", "", false));
        assert!(glob("a*c", "abbc", false));
        assert!(glob("a*b*c", "axbyc", false));
        assert!(!glob("ab*ba", "aba", false));
        assert!(!glob("abc", "ABC", false));
        assert!(glob("abc", "ABC", true));
    }

    fn playbook() -> Playbook {
        Playbook {
            summary: RunnablePlaybook {
                id: Uuid::from_u128(5),
                name: "restart".into(),
                namespace: "default".into(),
                title: "Restart".into(),
                category: "ops".into(),
                icon: None,
                description: None,
            },
            spec: Json(json!({})),
            labels: Json(
                json!({"team": "web"})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            ),
        }
    }

    fn who(roles: &[&str], rules: Vec<Rule>) -> Authorizer {
        Authorizer {
            roles: roles.iter().map(|r| r.to_string()).collect(),
            rules,
            token_scope: None,
        }
    }

    fn rule(action: &str, deny: bool) -> Rule {
        Rule {
            id: Uuid::new_v4(),
            subject_type: "person".into(),
            subject: None,
            object: None,
            action: action.into(),
            deny,
            resource_id: None,
            object_selector: None,
        }
    }

    #[test]
    fn rights_on_one_playbook() {
        let p = playbook();
        let run = PlaybookRight::Run;
        assert!(holds(&who(&["editor"], vec![]), &p, run));
        assert!(holds(&who(&["admin"], vec![]), &p, PlaybookRight::Approve));
        assert!(!holds(&who(&["viewer"], vec![]), &p, run));
        assert!(!holds_on_some(&who(&["viewer"], vec![]), run));
        let on = |rule: Rule| who(&["viewer"], vec![rule]);
        let by_id = Rule {
            resource_id: Some(p.summary.id),
            ..rule("playbook:run", false)
        };
        assert!(holds(&on(by_id.clone()), &p, run));
        assert!(holds_on_some(&on(by_id.clone()), run));
        assert!(!holds(&on(by_id), &p, PlaybookRight::Approve));
        let elsewhere = Rule {
            resource_id: Some(Uuid::from_u128(6)),
            ..rule("playbook:*", false)
        };
        assert!(!holds(&on(elsewhere), &p, run));
        let global = Rule {
            object: Some("playbooks".into()),
            ..rule("read,playbook:run", false)
        };
        assert!(holds(&on(global), &p, run));
        for (selector, selected) in [
            (json!({"playbooks": [{"labelSelector": "team=web"}]}), true),
            (
                json!({"playbooks": [{"name": "restart", "namespace": "default"}]}),
                true,
            ),
            (json!({"playbooks": [{"name": "other"}]}), false),
            (json!({"configs": [{"name": "*"}]}), false),
        ] {
            let r = Rule {
                object_selector: Some(selector.clone()),
                ..rule("playbook:run", false)
            };
            assert_eq!(holds(&on(r), &p, run), selected, "{selector}");
        }
        let denied = Rule {
            object_selector: Some(json!({"playbooks": [{"tagSelector": "team=web"}]})),
            ..rule("*", true)
        };
        assert!(!holds(&who(&["admin"], vec![denied.clone()]), &p, run));
        assert!(holds_on_some(&who(&["admin"], vec![denied]), run));
        let denied_all = Rule {
            object: Some("*".into()),
            ..rule("playbook:run", true)
        };
        assert!(!holds_on_some(&who(&["admin"], vec![denied_all]), run));
    }

    #[test]
    fn a_token_scope_must_name_the_right() {
        let p = playbook();
        let token = |actions: &[TokenAction]| Authorizer {
            token_scope: Some(vec![crate::rbac::ScopeGrant {
                subject: None,
                object: TokenObject::Playbooks,
                actions: actions.to_vec(),
            }]),
            ..who(&["editor"], vec![])
        };
        assert!(!holds(&token(&[TokenAction::Read]), &p, PlaybookRight::Run));
        assert!(holds(
            &token(&[TokenAction::PlaybookRun]),
            &p,
            PlaybookRight::Run
        ));
        assert!(!holds(
            &token(&[TokenAction::PlaybookRun]),
            &p,
            PlaybookRight::Approve
        ));
        assert!(holds(
            &token(&[TokenAction::PlaybookAll]),
            &p,
            PlaybookRight::Approve
        ));
    }
}
