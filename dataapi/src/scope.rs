//! Access-scope visibility: which config items, components, playbooks and
//! canaries (and, through them, checks, changes, runs...) a caller may see.
//!
//! Who is restricted ([`visibility`], from the caller's grants):
//! - A person with the `guest` role is restricted on every kind: they see
//!   the rows matched by the access scopes (their own and their teams',
//!   not deleted) whose `resources` include that kind or `*`. A guest
//!   without such scopes sees none of that kind.
//! - Anyone else is restricted on a kind only when one of their teams has an
//!   access scope covering it; they then see what their covering scopes
//!   (team and personal) match. Otherwise they are unrestricted.
//!
//! Matching, done in SQL by
//! `quarterdeck_scope_allows(rules, tags, agent_id, name)` (migration 0013):
//! a row is visible when any rule matches; within a rule every criterion
//! given must match: all its tags equal the row's tags (`tags` of config
//! items, `labels` of components, canaries and playbooks), one of its agents
//! is the row's agent id or that agent's name, and its names list the row's
//! name or hold `*`. A rule with no criterion matches nothing.

use std::collections::BTreeMap;

use super::schema::ScopeKind;
use quarterdeck_store::grants::AccessScopeGrant;
pub use quarterdeck_store::grants::ScopeRule;

/// What a caller may see, per kind: `None` = unrestricted, `Some(rules)` =
/// the rows any rule matches (`Some(vec![])` = none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Visibility {
    pub config: Option<Vec<ScopeRule>>,
    pub component: Option<Vec<ScopeRule>>,
    pub playbook: Option<Vec<ScopeRule>>,
    pub canary: Option<Vec<ScopeRule>>,
}

impl Visibility {
    /// Sees nothing of any kind.
    pub fn none() -> Self {
        Self {
            config: Some(Vec::new()),
            component: Some(Vec::new()),
            playbook: Some(Vec::new()),
            canary: Some(Vec::new()),
        }
    }

    /// Whether access scopes restrict any kind.
    pub fn restricted(&self) -> bool {
        ScopeKind::ALL.iter().any(|k| self.rules(*k).is_some())
    }

    pub fn rules(&self, kind: ScopeKind) -> Option<&[ScopeRule]> {
        match kind {
            ScopeKind::Config => self.config.as_deref(),
            ScopeKind::Component => self.component.as_deref(),
            ScopeKind::Playbook => self.playbook.as_deref(),
            ScopeKind::Canary => self.canary.as_deref(),
        }
    }

    fn rules_mut(&mut self, kind: ScopeKind) -> &mut Option<Vec<ScopeRule>> {
        match kind {
            ScopeKind::Config => &mut self.config,
            ScopeKind::Component => &mut self.component,
            ScopeKind::Playbook => &mut self.playbook,
            ScopeKind::Canary => &mut self.canary,
        }
    }
}

/// What a live person with these roles and access scopes may see (rules in
/// the module documentation).
pub fn visibility(roles: &[String], access_scopes: &[AccessScopeGrant]) -> Visibility {
    let guest = roles.iter().any(|r| r == "guest");
    build(guest, access_scopes)
}

fn build(guest: bool, rows: &[AccessScopeGrant]) -> Visibility {
    let mut visibility = Visibility::default();
    for kind in ScopeKind::ALL {
        let covering: Vec<&AccessScopeGrant> = rows
            .iter()
            .filter(|r| r.resources.iter().any(|x| x == "*" || x == kind.as_str()))
            .collect();
        let restricted = guest || covering.iter().any(|r| !r.personal);
        if restricted {
            let rules = covering.iter().flat_map(|r| rules(&r.scopes)).collect();
            *visibility.rules_mut(kind) = Some(rules);
        }
    }
    visibility
}

/// The usable rules of a `scopes` column; malformed entries are dropped
/// (which can only narrow what is visible).
fn rules(scopes: &serde_json::Value) -> Vec<ScopeRule> {
    let Some(entries) = scopes.as_array() else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|entry| {
            let entry = entry.as_object()?;
            let strings = |key: &str| -> Option<Vec<String>> {
                match entry.get(key) {
                    None | Some(serde_json::Value::Null) => Some(Vec::new()),
                    Some(v) => v
                        .as_array()?
                        .iter()
                        .map(|s| s.as_str().map(str::to_owned))
                        .collect(),
                }
            };
            let tags = match entry.get("tags") {
                None | Some(serde_json::Value::Null) => BTreeMap::new(),
                Some(v) => v
                    .as_object()?
                    .iter()
                    .map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
                    .collect::<Option<_>>()?,
            };
            let rule = ScopeRule {
                tags,
                agents: strings("agents")?,
                names: strings("names")?,
            };
            let empty = rule.tags.is_empty() && rule.agents.is_empty() && rule.names.is_empty();
            (!empty).then_some(rule)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn row(personal: bool, resources: &[&str], scopes: serde_json::Value) -> AccessScopeGrant {
        AccessScopeGrant {
            personal,
            resources: resources.iter().map(|s| s.to_string()).collect(),
            scopes,
        }
    }

    #[test]
    fn a_guest_without_scopes_sees_nothing() {
        assert_eq!(build(true, &[]), Visibility::none());
    }

    #[test]
    fn a_guest_is_limited_to_the_covering_scopes() {
        let v = build(
            true,
            &[row(
                true,
                &["config"],
                json!([{"tags": {"env": "prod"}}, {"names": ["*"]}]),
            )],
        );
        assert_eq!(v.config.as_ref().map(Vec::len), Some(2));
        assert_eq!(v.component, Some(vec![]));
        assert_eq!(v.playbook, Some(vec![]));
        assert_eq!(v.canary, Some(vec![]));
    }

    #[test]
    fn others_are_restricted_only_by_team_scopes() {
        let personal = row(true, &["*"], json!([{"names": ["a"]}]));
        assert_eq!(
            build(false, std::slice::from_ref(&personal)),
            Visibility::default()
        );

        let team = row(false, &["canary"], json!([{"agents": ["eu"]}]));
        let v = build(false, &[personal, team]);
        assert_eq!(v.config, None);
        let canary = v.canary.expect("restricted");
        assert_eq!(canary.len(), 2, "team and personal rules both count");
    }

    #[test]
    fn malformed_and_empty_entries_are_dropped() {
        let rules = rules(&json!([
            {},
            {"tags": {}, "agents": [], "names": []},
            {"tags": {"a": 1}},
            {"agents": "x"},
            "nope",
            {"names": ["ok"], "unknown": true}
        ]));
        assert_eq!(
            rules,
            vec![ScopeRule {
                names: vec!["ok".into()],
                ..ScopeRule::default()
            }]
        );
    }
}
