//! Who may do what: the role matrix of the console spec (part 2 section 6),
//! permission rules from the permissions table (deny wins), and token
//! scopes, which only ever narrow what the token's creator may do.
//!
//! Rights are never granted by someone who lacks them (Kubernetes RBAC's
//! `escalate` rule): [`Authorizer::holds`] decides whether a caller holds
//! everything a permission rule or a role names, and rules cannot grant
//! the admin-only resources at all.
//!
//! Rules with selectors ([`selector`]) are about some rows only: an allow
//! grants its actions on the rows it selects, a deny takes them away (and
//! wins over every allow, roles included). [`Authorizer::allows`] answers for
//! every row of a resource and ignores them; [`Authorizer::row_filter`]
//! says which rows of a kind the caller may act on, which the data API
//! turns into SQL on every read and write path.

/// An enum of names: serde and the OpenAPI document use the names, `ALL`
/// lists the variants in order, and parsing anything else fails naming the
/// field ([`Unknown`]).
macro_rules! named_enum {
    // `$text` is a `tt`, not a `literal`: a `literal` reaches derive macros
    // wrapped in an invisible group, and utoipa then misses the serde rename.
    ($(#[$meta:meta])* pub enum $name:ident as $field:literal {
        $($(#[$vmeta:meta])* $variant:ident = $text:tt,)*
    }) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, utoipa::ToSchema,
        )]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $text)] $variant,)*
        }

        impl $name {
            pub const ALL: &[$name] = &[$($name::$variant),*];
            /// The names of [`Self::ALL`].
            pub const NAMES: &[&str] = &[$($text),*];

            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::rbac::Unknown;

            fn from_str(value: &str) -> Result<Self, Self::Err> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|v| v.as_str() == value)
                    .ok_or_else(|| $crate::rbac::Unknown {
                        field: $field,
                        value: value.to_owned(),
                        allowed: Self::NAMES,
                    })
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}
pub(crate) use named_enum;

mod matrix;
pub mod selector;
pub mod typescript;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::grants::Rule;
use crate::tokens::{TokenAction, TokenObject};
use matrix::ADMIN_ONLY;
pub use matrix::{Action, Resource, Role, RuleObject};
pub use selector::{Kind, Requirement, Selector};

/// A name that is none of its enum's, naming the field it came in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {value:?} is not one of {}", allowed.join(", "))]
pub struct Unknown {
    pub field: &'static str,
    pub value: String,
    pub allowed: &'static [&'static str],
}

/// Whether any of these roles (as stored: names this model does not know
/// grant nothing) allows the action on the resource.
fn roles_allow(roles: &[String], resource: Resource, action: Action) -> bool {
    roles
        .iter()
        .filter_map(|r| r.parse::<Role>().ok())
        .any(|role| role.allows(resource, action))
}

/// Whether a rule's or a token scope's object names the resource.
fn names(object: &str, resource: Resource) -> bool {
    object == resource.as_str() || object.parse().is_ok_and(|o: RuleObject| o.covers(resource))
}

fn action_matches(listed: &str, action: Action) -> bool {
    listed
        .split(',')
        .map(str::trim)
        .any(|a| a == "*" || a == action.as_str())
}

fn object_matches(object: Option<&str>, resource: Resource) -> bool {
    object.is_some_and(|o| o == "*" || names(o, resource))
}

/// Whether a token scope's actions allow the action. Run Now counts as
/// `create` on canaries for tokens (the Write preset grants it).
fn scope_action_matches(listed: &[TokenAction], action: Action) -> bool {
    let named = |a: Action| {
        listed
            .iter()
            .any(|&t| t == TokenAction::All || t.as_str() == a.as_str())
    };
    named(action) || (action == Action::Run && named(Action::Create))
}

/// One entry of a token's scope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ScopeGrant {
    #[serde(default)]
    pub subject: Option<String>,
    pub object: TokenObject,
    /// Comma-separated on the wire, e.g. `read,create`.
    #[serde(rename = "action", with = "crate::tokens::comma_list")]
    #[schema(value_type = String, example = "read,create", pattern = r"^(read|create|update|delete|\*|playbook:(run|approve|\*))(,(read|create|update|delete|\*|playbook:(run|approve|\*)))*$")]
    pub actions: Vec<TokenAction>,
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
        self.roles.iter().any(|r| r == Role::Admin.as_str()) && self.token_scope.is_none()
    }

    /// Global (not resource-specific) rules that match the request.
    fn matching_rules(&self, resource: Resource, action: Action) -> impl Iterator<Item = &Rule> {
        self.rules.iter().filter(move |r| {
            r.resource_id.is_none()
                && object_matches(r.object.as_deref(), resource)
                && action_matches(&r.action, action)
        })
    }

    /// Whether the caller may do `action` on `resource`.
    pub fn allows(&self, resource: Resource, action: Action) -> bool {
        if self.matching_rules(resource, action).any(|r| r.deny) {
            return false;
        }
        let by_rule = !ADMIN_ONLY.contains(&resource)
            && self.matching_rules(resource, action).any(|r| !r.deny);
        let allowed = by_rule || roles_allow(&self.roles, resource, action);
        allowed && self.scope_allows(resource, action)
    }

    /// Every action the caller may do on some rows at least, per resource
    /// (what `whoami` tells the console, which decides nothing on its own).
    pub fn rights(&self) -> BTreeMap<Resource, Vec<Action>> {
        self.rights_where(|resource, a| {
            self.allows(resource, a)
                || Kind::ALL
                    .iter()
                    .any(|&k| self.can_some(k, a) && k.resource() == resource)
        })
    }

    /// The actions of [`Authorizer::rights`] that hold on some rows only:
    /// rules with selectors grant or deny them (the API filters the rows).
    pub fn limited_rights(&self) -> BTreeMap<Resource, Vec<Action>> {
        self.rights_where(|resource, a| {
            Kind::ALL.iter().any(|&k| {
                k.resource() == resource && self.can_some(k, a) && self.row_filter(k, a).is_some()
            })
        })
        .into_iter()
        .filter(|(_, actions)| !actions.is_empty())
        .collect()
    }

    fn rights_where(
        &self,
        holds: impl Fn(Resource, Action) -> bool,
    ) -> BTreeMap<Resource, Vec<Action>> {
        Resource::ALL
            .iter()
            .map(|&resource| {
                let actions = Action::on(resource)
                    .iter()
                    .copied()
                    .filter(|&a| holds(resource, a))
                    .collect();
                (resource, actions)
            })
            .collect()
    }

    /// The selectors of the caller's rules with selectors that name `action`
    /// on `kind`, allows and denies apart. A rule whose selector does not
    /// parse (only possible for rows written around the API) grants nothing
    /// and, when it denies, denies every row of the kinds it names.
    fn selected(&self, kind: Kind, action: Action) -> (Vec<Selector>, Vec<Selector>, bool) {
        let (mut allow, mut deny, mut deny_all) = (Vec::new(), Vec::new(), false);
        let rules = self.rules.iter().filter(|r| {
            r.object.is_none() && r.resource_id.is_none() && action_matches(&r.action, action)
        });
        for rule in rules {
            match selector::of_rule(rule.object_selector.as_ref()) {
                None => {}
                Some(Ok(selected)) => {
                    let found = selected.into_iter().filter(|(k, _)| *k == kind);
                    let into = if rule.deny { &mut deny } else { &mut allow };
                    into.extend(found.flat_map(|(_, s)| s));
                }
                Some(Err(_)) => {
                    let names_kind = rule
                        .object_selector
                        .as_ref()
                        .and_then(|o| o.get(kind.key()))
                        .is_some();
                    deny_all |= rule.deny && names_kind;
                }
            }
        }
        (allow, deny, deny_all)
    }

    /// Which rows of `kind` the caller may do `action` on: `None` for every
    /// row, else the filter the data API applies.
    pub fn row_filter(&self, kind: Kind, action: Action) -> Option<RowFilter> {
        let resource = kind.resource();
        let all = self.allows(resource, action);
        let (allow, deny, deny_all) = self.selected(kind, action);
        if deny_all {
            return Some(RowFilter::default());
        }
        let allow = if all || !self.rules_may_grant(resource, action) {
            Vec::new()
        } else {
            allow
        };
        if allow.is_empty() && deny.is_empty() {
            // No rule with selectors bears on it: every row or none, as
            // `can` says (and access scopes narrow).
            return None;
        }
        Some(RowFilter { all, allow, deny })
    }

    /// Whether the caller may do `action` on at least some rows of `kind`
    /// (as far as rules and roles tell; the rows decide the rest).
    pub fn can_some(&self, kind: Kind, action: Action) -> bool {
        match self.row_filter(kind, action) {
            None => self.allows(kind.resource(), action),
            Some(f) => f.all || !f.allow.is_empty(),
        }
    }

    /// Whether an allow rule may grant the action on the resource: never an
    /// admin-only resource, never past a global deny or the token's scope.
    fn rules_may_grant(&self, resource: Resource, action: Action) -> bool {
        !ADMIN_ONLY.contains(&resource)
            && !self.matching_rules(resource, action).any(|r| r.deny)
            && self.scope_allows(resource, action)
    }

    /// Whether the caller holds everything `coverage` names.
    pub fn holds(&self, coverage: &Coverage) -> bool {
        match coverage {
            Coverage::AdminOnly => self.is_admin(),
            Coverage::Pairs(pairs) => pairs.iter().all(|&(r, a)| self.allows(r, a)),
            Coverage::Rows(pairs) => pairs
                .iter()
                .all(|&(k, a)| self.allows(k.resource(), a) && self.row_filter(k, a).is_none()),
        }
    }

    fn scope_allows(&self, resource: Resource, action: Action) -> bool {
        let Some(grants) = &self.token_scope else {
            return true;
        };
        grants
            .iter()
            .any(|g| names(g.object.as_str(), resource) && scope_action_matches(&g.actions, action))
    }
}

/// The rows of one kind a caller may act on, beside what roles and global
/// rules grant on every row.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowFilter {
    /// Roles or global rules grant the action on every row.
    pub all: bool,
    /// Rows any of these select are granted too.
    pub allow: Vec<Selector>,
    /// Rows any of these select are refused, whatever grants them.
    pub deny: Vec<Selector>,
}

/// The rights a permission rule or a role names: what a caller must hold to
/// write it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Coverage {
    /// These (resource, action) pairs.
    Pairs(Vec<(Resource, Action)>),
    /// These actions on every row of these kinds, with no selector rule
    /// narrowing them: what a rule with selectors names (holding them on
    /// every row covers whichever rows it selects).
    Rows(Vec<(Kind, Action)>),
    /// Something only admins may hand out: an object or action this model
    /// does not know (it may gain meaning later), or a selector this model
    /// cannot enforce.
    AdminOnly,
}

impl Coverage {
    /// What a permission rule names: its global `object` (or, for a rule
    /// about one resource, the resource kind of that row) and its actions.
    pub fn of_rule(object: Option<&str>, resource_kind: Option<Resource>, actions: &str) -> Self {
        let resources: Vec<Resource> = match (object, resource_kind) {
            (Some(object), _) => Resource::ALL
                .iter()
                .copied()
                .filter(|&r| object_matches(Some(object), r))
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
                other => match other.parse() {
                    Ok(a) => named.push(a),
                    Err(_) => return Coverage::AdminOnly,
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

    /// What a rule with selectors names: its actions on the kinds it selects.
    pub fn of_selector(object_selector: &serde_json::Value, actions: &str) -> Self {
        let Some(Ok(selected)) = selector::of_rule(Some(object_selector)) else {
            return Coverage::AdminOnly;
        };
        let mut pairs = Vec::new();
        for (kind, _) in &selected {
            match Coverage::of_rule(None, Some(kind.resource()), actions) {
                Coverage::Pairs(named) => pairs.extend(named.into_iter().map(|(_, a)| (*kind, a))),
                other => return other,
            }
        }
        if pairs.is_empty() {
            return Coverage::AdminOnly;
        }
        Coverage::Rows(pairs)
    }

    /// What a role grants through the matrix.
    pub fn of_role(role: Role) -> Self {
        Coverage::Pairs(
            Resource::ALL
                .iter()
                .flat_map(|&r| Action::on(r).iter().map(move |&a| (r, a)))
                .filter(|&(r, a)| role.allows(r, a))
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
            object_selector: None,
        }
    }

    fn selecting(selector: serde_json::Value, action: &str, deny: bool) -> Rule {
        Rule {
            object: None,
            object_selector: Some(selector),
            ..rule("*", action, deny)
        }
    }

    #[test]
    fn the_role_matrix() {
        use matrix::{NOT_FOR_GUESTS, RESPONDER_WRITES};
        for &r in Resource::ALL {
            let admin_only = ADMIN_ONLY.contains(&r);
            for action in [Action::Read, Action::Create, Action::Update, Action::Delete] {
                let write = action != Action::Read;
                assert!(roles(&["admin"]).allows(r, action));
                assert_eq!(
                    roles(&["editor"]).allows(r, action),
                    !admin_only,
                    "editor {r}"
                );
                for role in ["commander", "responder"] {
                    let expected = !admin_only && (!write || RESPONDER_WRITES.contains(&r));
                    assert_eq!(
                        roles(&[role]).allows(r, action),
                        expected,
                        "{role} {r} {action:?}"
                    );
                }
                assert_eq!(
                    roles(&["viewer"]).allows(r, action),
                    !admin_only && !write,
                    "viewer {r}"
                );
                assert_eq!(
                    roles(&["guest"]).allows(r, action),
                    !admin_only && !NOT_FOR_GUESTS.contains(&r) && !write,
                    "guest {r}"
                );
                assert!(!roles(&[]).allows(r, action), "no role, no access");
            }
        }
    }

    #[test]
    fn several_roles_give_the_union() {
        let both = roles(&["viewer", "responder"]);
        assert!(both.allows(Resource::Incident, Action::Create));
        assert!(both.allows(Resource::Canaries, Action::Read));
        assert!(!both.allows(Resource::Canaries, Action::Update));
    }

    #[test]
    fn rules_allow_and_deny_wins() {
        let mut viewer = roles(&["viewer"]);
        viewer.rules.push(rule("playbooks", "read,create", false));
        assert!(viewer.allows(Resource::Playbooks, Action::Create));
        assert!(!viewer.allows(Resource::Playbooks, Action::Delete));
        viewer.rules.push(rule("playbooks", "create", true));
        assert!(
            !viewer.allows(Resource::Playbooks, Action::Create),
            "deny wins"
        );

        let mut admin = roles(&["admin"]);
        admin.rules.push(rule("*", "*", true));
        assert!(
            !admin.allows(Resource::Canaries, Action::Read),
            "a deny rule binds admins too"
        );
    }

    #[test]
    fn resource_specific_rules_do_not_grant_global_access() {
        let mut viewer = roles(&["viewer"]);
        let mut r = rule("playbooks", "*", false);
        r.resource_id = Some(Uuid::new_v4());
        viewer.rules.push(r);
        assert!(!viewer.allows(Resource::Playbooks, Action::Create));
    }

    #[test]
    fn token_scopes_narrow_but_never_widen() {
        let mut token = roles(&["editor"]);
        token.token_scope = Some(vec![ScopeGrant {
            subject: None,
            object: TokenObject::Canaries,
            actions: vec![TokenAction::Read],
        }]);
        assert!(token.allows(Resource::Canaries, Action::Read));
        assert!(!token.allows(Resource::Canaries, Action::Update));
        assert!(!token.allows(Resource::Playbooks, Action::Read));
        assert!(!token.is_admin());

        let mut viewer_token = roles(&["viewer"]);
        viewer_token.token_scope = Some(vec![ScopeGrant {
            subject: None,
            object: TokenObject::Canaries,
            actions: vec![TokenAction::All],
        }]);
        assert!(
            !viewer_token.allows(Resource::Canaries, Action::Update),
            "never more than the creator"
        );
    }

    #[test]
    fn selector_rules_leave_every_row_rights_alone() {
        let mut viewer = roles(&["viewer"]);
        assert_eq!(viewer.row_filter(Kind::Config, Action::Read), None);
        viewer.rules.push(selecting(
            serde_json::json!({"configs": [{"tagSelector": "env=prod"}]}),
            "read",
            true,
        ));
        assert!(
            viewer.allows(Resource::Database, Action::Read),
            "a resource-wide check"
        );
        let filter = viewer
            .row_filter(Kind::Config, Action::Read)
            .expect("narrowed");
        assert!(filter.all);
        assert_eq!(filter.deny.len(), 1);
        assert_eq!(viewer.row_filter(Kind::Component, Action::Read), None);
        assert_eq!(viewer.row_filter(Kind::Config, Action::Update), None);
        assert_eq!(
            viewer.limited_rights().get(&Resource::Database),
            Some(&vec![Action::Read])
        );
        assert!(viewer.rights()[&Resource::Database].contains(&Action::Read));
    }

    #[test]
    fn a_selector_allow_grants_some_rows_only() {
        let mut nobody = roles(&[]);
        nobody.rules.push(selecting(
            serde_json::json!({"playbooks": [{"name": "restart"}]}),
            "read,update",
            false,
        ));
        assert!(!nobody.allows(Resource::Playbooks, Action::Read));
        assert!(nobody.can_some(Kind::Playbook, Action::Update));
        assert!(!nobody.can_some(Kind::Playbook, Action::Delete));
        assert!(!nobody.can_some(Kind::Config, Action::Read));
        let filter = nobody
            .row_filter(Kind::Playbook, Action::Read)
            .expect("narrowed");
        assert!(!filter.all);
        assert_eq!(filter.allow[0].name.as_deref(), Some("restart"));
        let read_update = vec![Action::Read, Action::Update];
        assert_eq!(nobody.rights()[&Resource::Playbooks], read_update);
        assert_eq!(nobody.limited_rights()[&Resource::Playbooks], read_update);
        assert!(!nobody.limited_rights().contains_key(&Resource::Database));
    }

    #[test]
    fn selector_allows_never_pass_admin_only_resources_global_denies_or_token_scopes() {
        let connections = serde_json::json!({"connections": [{"type": "postgres"}]});
        let mut viewer = roles(&["viewer"]);
        viewer
            .rules
            .push(selecting(connections.clone(), "read", false));
        assert!(!viewer.can_some(Kind::Connection, Action::Read));

        let playbooks = serde_json::json!({"playbooks": [{"name": "*"}]});
        let mut denied = roles(&[]);
        denied
            .rules
            .push(selecting(playbooks.clone(), "update", false));
        denied.rules.push(rule("playbooks", "update", true));
        assert!(!denied.can_some(Kind::Playbook, Action::Update));

        let mut token = roles(&[]);
        token.rules.push(selecting(playbooks, "update", false));
        token.token_scope = Some(vec![ScopeGrant {
            subject: None,
            object: TokenObject::Playbooks,
            actions: vec![TokenAction::Read],
        }]);
        assert!(!token.can_some(Kind::Playbook, Action::Update));
    }

    #[test]
    fn an_unparsable_selector_denies_everything_it_names_and_grants_nothing() {
        let bad = serde_json::json!({"configs": [{"search": "x"}]});
        let mut viewer = roles(&["viewer"]);
        viewer.rules.push(selecting(bad.clone(), "read", false));
        assert_eq!(viewer.row_filter(Kind::Config, Action::Read), None);
        viewer.rules.push(selecting(bad, "read", true));
        assert_eq!(
            viewer.row_filter(Kind::Config, Action::Read),
            Some(RowFilter::default())
        );
        assert!(!viewer.can_some(Kind::Config, Action::Read));
    }

    #[test]
    fn a_rule_object_names_its_resources_and_one_without_a_meaning_is_for_admins() {
        assert_eq!(
            Coverage::of_rule(Some("catalog"), None, "read"),
            Coverage::Pairs(vec![
                (Resource::Database, Action::Read),
                (Resource::ConfigScrapers, Action::Read)
            ])
        );
        for object in ["logs", "artifact", "roles"] {
            assert_eq!(
                Coverage::of_rule(Some(object), None, "read"),
                Coverage::AdminOnly,
                "{object}"
            );
        }
        let mut viewer = roles(&["viewer"]);
        viewer.rules.push(rule("people", "read", false));
        assert!(!viewer.allows(Resource::Identities, Action::Read));
        viewer.rules.push(rule("topology", "update", false));
        assert!(viewer.allows(Resource::Topologies, Action::Update));
    }

    #[test]
    fn writing_a_selector_rule_needs_its_actions_on_every_row() {
        let selector = serde_json::json!({"configs": [{"tagSelector": "env=prod"}]});
        let coverage = Coverage::of_selector(&selector, "read");
        assert_eq!(coverage, Coverage::Rows(vec![(Kind::Config, Action::Read)]));
        let mut editor = roles(&["editor"]);
        assert!(editor.holds(&coverage));
        assert!(!roles(&["guest"]).holds(&Coverage::of_selector(&selector, "update")));
        editor.rules.push(selecting(selector.clone(), "read", true));
        assert!(!editor.holds(&coverage), "narrowed on some rows");
        assert_eq!(
            Coverage::of_selector(&serde_json::json!({"configs": [{"search": "x"}]}), "read"),
            Coverage::AdminOnly
        );
        assert_eq!(
            Coverage::of_selector(&selector, "mcp:use"),
            Coverage::AdminOnly
        );
    }
}
