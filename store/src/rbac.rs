//! Who may do what: the role matrix of the console spec (part 2 section 6),
//! permission rules from the permissions table (deny wins), and token
//! scopes, which only ever narrow what the token's creator may do.
//!
//! Rights are never granted by someone who lacks them (Kubernetes RBAC's
//! `escalate` rule): [`Authorizer::holds`] decides whether a caller holds
//! everything a permission rule or a role names, and rules cannot grant
//! the admin-only resources at all.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::grants::Rule;

/// The resources the role matrix names.
pub const RESOURCES: &[&str] = &[
    "database",
    "rbac",
    "auth",
    "responder",
    "incident",
    "evidences",
    "comments",
    "canaries",
    "topologies",
    "config_scrapers",
    "identities",
    "connections",
    "kratos",
    "agents",
    "feature_flags",
    "logging_backends",
    "integrations",
    "notifications",
    "playbooks",
    "playbook_runs",
    "permissions",
    "access_scopes",
    "views",
    "kubernetes-proxy",
];

/// Resources only admins may read or write; permission rules cannot grant them.
const ADMIN_ONLY: &[&str] = &["rbac", "identities", "connections"];
/// Resources guests may not even read: access scopes cannot narrow them
/// (the cluster behind `/kubeproxy`).
const NOT_FOR_GUESTS: &[&str] = &["kubernetes-proxy"];
/// What commanders and responders may write.
const RESPONDER_WRITES: &[&str] = &["responder", "incident", "evidences", "comments"];

/// The one resource with an action beyond the four: running a check now.
const RUNNABLE: &str = "canaries";
/// Roles that may Run Now (spec part 2 section 6).
const RUN_NOW_ROLES: &[&str] = &["admin", "editor", "responder", "commander"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Action {
    Read,
    Create,
    Update,
    Delete,
    /// Run Now, on `canaries` only.
    Run,
}

impl Action {
    pub const ALL: [Action; 5] = [
        Action::Read,
        Action::Create,
        Action::Update,
        Action::Delete,
        Action::Run,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Action::Read => "read",
            Action::Create => "create",
            Action::Update => "update",
            Action::Delete => "delete",
            Action::Run => "run",
        }
    }

    fn is_write(self) -> bool {
        self != Action::Read
    }

    /// The actions that exist on a resource.
    pub fn on(resource: &str) -> &'static [Action] {
        if resource == RUNNABLE {
            &Action::ALL
        } else {
            &Action::ALL[..4]
        }
    }
}

/// Whether one role's matrix row allows the action on the resource.
fn role_allows(role: &str, resource: &str, action: Action) -> bool {
    if action == Action::Run {
        return resource == RUNNABLE && RUN_NOW_ROLES.contains(&role);
    }
    match role {
        "admin" => true,
        "editor" => !ADMIN_ONLY.contains(&resource),
        "commander" | "responder" => {
            !ADMIN_ONLY.contains(&resource)
                && (!action.is_write() || RESPONDER_WRITES.contains(&resource))
        }
        "viewer" => !ADMIN_ONLY.contains(&resource) && !action.is_write(),
        "guest" => {
            !ADMIN_ONLY.contains(&resource)
                && !NOT_FOR_GUESTS.contains(&resource)
                && !action.is_write()
        }
        _ => false,
    }
}

/// The permission objects (`object` of a rule, and of a token scope) that
/// stand for a matrix resource.
fn objects_for(resource: &str) -> &'static [&'static str] {
    match resource {
        "canaries" => &["canaries"],
        "topologies" => &["topology"],
        "database" | "config_scrapers" => &["catalog"],
        "playbooks" | "playbook_runs" => &["playbooks"],
        "connections" => &["connection"],
        "notifications" => &["notification"],
        "permissions" | "access_scopes" | "rbac" => &["rbac"],
        "identities" => &["people"],
        "views" => &["views"],
        "agents" => &["agent"],
        _ => &[],
    }
}

fn action_matches(listed: &str, action: Action) -> bool {
    listed
        .split(',')
        .map(str::trim)
        .any(|a| a == "*" || a == action.as_str())
}

fn object_matches(object: Option<&str>, resource: &str) -> bool {
    object.is_some_and(|o| o == "*" || o == resource || objects_for(resource).contains(&o))
}

/// Whether a token scope's action list allows the action. Run Now counts
/// as `create` on canaries for tokens (the Write preset grants it).
fn scope_action_matches(listed: &str, action: Action) -> bool {
    action_matches(listed, action)
        || (action == Action::Run && action_matches(listed, Action::Create))
}

/// One entry of a token's scope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScopeGrant {
    #[serde(default)]
    pub subject: Option<String>,
    pub object: String,
    pub action: String,
}

/// Decides requests for one caller. The default holds no rights.
#[derive(Debug, Clone, Default)]
pub struct Authorizer {
    pub roles: Vec<String>,
    pub rules: Vec<Rule>,
    /// Set for a token with a scope: only these grants, within the roles.
    pub token_scope: Option<Vec<ScopeGrant>>,
}

impl Authorizer {
    pub fn is_admin(&self) -> bool {
        self.roles.iter().any(|r| r == "admin") && self.token_scope.is_none()
    }

    /// Global (not resource-specific) rules that match the request.
    fn matching_rules(&self, resource: &str, action: Action) -> impl Iterator<Item = &Rule> {
        self.rules.iter().filter(move |r| {
            r.resource_id.is_none()
                && object_matches(r.object.as_deref(), resource)
                && action_matches(&r.action, action)
        })
    }

    /// Whether the caller may do `action` on `resource`.
    pub fn can(&self, resource: &str, action: Action) -> bool {
        if self.matching_rules(resource, action).any(|r| r.deny) {
            return false;
        }
        let by_rule = !ADMIN_ONLY.contains(&resource)
            && self.matching_rules(resource, action).any(|r| !r.deny);
        let allowed = by_rule
            || self
                .roles
                .iter()
                .any(|role| role_allows(role, resource, action));
        allowed && self.scope_allows(resource, action)
    }

    /// Every action the caller may do, per resource (what `whoami` tells
    /// the console, which decides nothing on its own).
    pub fn rights(&self) -> BTreeMap<&'static str, Vec<&'static str>> {
        RESOURCES
            .iter()
            .map(|&resource| {
                let actions = Action::on(resource)
                    .iter()
                    .filter(|&&a| self.can(resource, a))
                    .map(|a| a.as_str())
                    .collect();
                (resource, actions)
            })
            .collect()
    }

    /// Whether the caller holds everything `coverage` names.
    pub fn holds(&self, coverage: &Coverage) -> bool {
        match coverage {
            Coverage::AdminOnly => self.is_admin(),
            Coverage::Pairs(pairs) => pairs.iter().all(|&(r, a)| self.can(r, a)),
        }
    }

    /// Whether the caller may do any of `actions` on any of `resources`.
    pub fn can_any(&self, resources: &[&str], action: Action) -> bool {
        resources.iter().any(|r| self.can(r, action))
    }

    fn scope_allows(&self, resource: &str, action: Action) -> bool {
        let Some(grants) = &self.token_scope else {
            return true;
        };
        grants.iter().any(|g| {
            (g.object == "*"
                || objects_for(resource).contains(&g.object.as_str())
                || g.object == resource)
                && scope_action_matches(&g.action, action)
        })
    }
}

/// The rights a permission rule or a role names: what a caller must hold to
/// write it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Coverage {
    /// These (resource, action) pairs.
    Pairs(Vec<(&'static str, Action)>),
    /// Something only admins may hand out: an object or action this model
    /// does not know (it may gain meaning later), or a selector rule.
    AdminOnly,
}

impl Coverage {
    /// What a permission rule names: its global `object` (or, for a rule
    /// about one resource, the resource kind of that row) and its actions.
    pub fn of_rule(
        object: Option<&str>,
        resource_kind: Option<&'static str>,
        actions: &str,
    ) -> Self {
        let resources: Vec<&'static str> = match (object, resource_kind) {
            (Some(object), _) => RESOURCES
                .iter()
                .copied()
                .filter(|r| object_matches(Some(object), r))
                .collect(),
            (None, Some(kind)) => vec![kind],
            (None, None) => return Coverage::AdminOnly,
        };
        if resources.is_empty() {
            return Coverage::AdminOnly;
        }
        let mut named = Vec::new();
        for action in actions.split(',').map(str::trim).filter(|a| !a.is_empty()) {
            match action {
                "*" => named.extend(Action::ALL),
                // Playbook runs and approvals are changes to playbooks' state.
                "playbook:run" | "playbook:approve" | "playbook:*" => named.push(Action::Update),
                other => match Action::ALL.iter().find(|a| a.as_str() == other) {
                    Some(&a) => named.push(a),
                    None => return Coverage::AdminOnly,
                },
            }
        }
        let pairs = resources
            .iter()
            .flat_map(|&r| {
                named
                    .iter()
                    .filter(move |a| Action::on(r).contains(a))
                    .map(move |&a| (r, a))
            })
            .collect();
        Coverage::Pairs(pairs)
    }

    /// What a role grants through the matrix.
    pub fn of_role(role: &str) -> Self {
        Coverage::Pairs(
            RESOURCES
                .iter()
                .flat_map(|&r| Action::on(r).iter().map(move |&a| (r, a)))
                .filter(|&(r, a)| role_allows(role, r, a))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use super::*;

    fn roles(roles: &[&str]) -> Authorizer {
        Authorizer {
            roles: roles.iter().map(|r| r.to_string()).collect(),
            rules: vec![],
            token_scope: None,
        }
    }

    fn rule(object: &str, action: &str, deny: bool) -> Rule {
        Rule {
            id: Uuid::new_v4(),
            subject_type: "person".into(),
            subject: None,
            object: Some(object.into()),
            action: action.into(),
            deny,
            resource_id: None,
        }
    }

    #[test]
    fn the_role_matrix() {
        for resource in RESOURCES {
            let admin_only = ADMIN_ONLY.contains(resource);
            for action in [Action::Read, Action::Create, Action::Update, Action::Delete] {
                let write = action != Action::Read;
                assert!(roles(&["admin"]).can(resource, action));
                assert_eq!(
                    roles(&["editor"]).can(resource, action),
                    !admin_only,
                    "editor {resource}"
                );
                for r in ["commander", "responder"] {
                    let expected = !admin_only && (!write || RESPONDER_WRITES.contains(resource));
                    assert_eq!(
                        roles(&[r]).can(resource, action),
                        expected,
                        "{r} {resource} {action:?}"
                    );
                }
                assert_eq!(
                    roles(&["viewer"]).can(resource, action),
                    !admin_only && !write,
                    "viewer {resource}"
                );
                assert_eq!(
                    roles(&["guest"]).can(resource, action),
                    !admin_only && !NOT_FOR_GUESTS.contains(resource) && !write,
                    "guest {resource}"
                );
                assert!(!roles(&[]).can(resource, action), "no role, no access");
            }
        }
    }

    #[test]
    fn several_roles_give_the_union() {
        let both = roles(&["viewer", "responder"]);
        assert!(both.can("incident", Action::Create));
        assert!(both.can("canaries", Action::Read));
        assert!(!both.can("canaries", Action::Update));
        assert!(both.can_any(&["canaries", "incident"], Action::Create));
    }

    #[test]
    fn rules_allow_and_deny_wins() {
        let mut viewer = roles(&["viewer"]);
        viewer.rules.push(rule("playbooks", "read,create", false));
        assert!(viewer.can("playbooks", Action::Create));
        assert!(!viewer.can("playbooks", Action::Delete));
        viewer.rules.push(rule("playbooks", "create", true));
        assert!(!viewer.can("playbooks", Action::Create), "deny wins");

        let mut admin = roles(&["admin"]);
        admin.rules.push(rule("*", "*", true));
        assert!(
            !admin.can("canaries", Action::Read),
            "a deny rule binds admins too"
        );
    }

    #[test]
    fn resource_specific_rules_do_not_grant_global_access() {
        let mut viewer = roles(&["viewer"]);
        let mut r = rule("playbooks", "*", false);
        r.resource_id = Some(Uuid::new_v4());
        viewer.rules.push(r);
        assert!(!viewer.can("playbooks", Action::Create));
    }

    #[test]
    fn token_scopes_narrow_but_never_widen() {
        let mut token = roles(&["editor"]);
        token.token_scope = Some(vec![ScopeGrant {
            subject: None,
            object: "canaries".into(),
            action: "read".into(),
        }]);
        assert!(token.can("canaries", Action::Read));
        assert!(!token.can("canaries", Action::Update));
        assert!(!token.can("playbooks", Action::Read));
        assert!(!token.is_admin());

        let mut viewer_token = roles(&["viewer"]);
        viewer_token.token_scope = Some(vec![ScopeGrant {
            subject: None,
            object: "*".into(),
            action: "*".into(),
        }]);
        assert!(
            !viewer_token.can("canaries", Action::Update),
            "never more than the creator"
        );
    }
}
