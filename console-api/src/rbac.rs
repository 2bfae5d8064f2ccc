//! Who may do what: the role matrix of the console spec (part 2 section 6),
//! permission rules from the permissions table (deny wins), and token
//! scopes, which only ever narrow what the token's creator may do.

use quarterdeck_store::grants::Rule;
use serde::{Deserialize, Serialize};

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

/// Resources only admins may read.
const ADMIN_ONLY: &[&str] = &["rbac", "identities", "connections"];
/// Resources guests may not even read: access scopes cannot narrow them
/// (the cluster behind `/kubeproxy`).
const NOT_FOR_GUESTS: &[&str] = &["kubernetes-proxy"];
/// What commanders and responders may write.
const RESPONDER_WRITES: &[&str] = &["responder", "incident", "evidences", "comments"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Read,
    Create,
    Update,
    Delete,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Read => "read",
            Action::Create => "create",
            Action::Update => "update",
            Action::Delete => "delete",
        }
    }

    fn is_write(self) -> bool {
        self != Action::Read
    }
}

/// Whether one role's matrix row allows the action on the resource.
fn role_allows(role: &str, resource: &str, action: Action) -> bool {
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

/// One entry of a token's scope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScopeGrant {
    #[serde(default)]
    pub subject: Option<String>,
    pub object: String,
    pub action: String,
}

/// Decides requests for one caller.
#[derive(Debug, Clone)]
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
        let allowed = self
            .roles
            .iter()
            .any(|role| role_allows(role, resource, action))
            || self.matching_rules(resource, action).any(|r| !r.deny);
        allowed && self.scope_allows(resource, action)
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
                && action_matches(&g.action, action)
        })
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
