//! Where a canary runs: `spec.replicas: 0` pauses it, and an `agentSelector`
//! leaves it to the agents it selects. This process is the agent named
//! [`LOCAL_AGENT`] (as Mission Control names the instance without agents).

/// The name an `agentSelector` selects this operator by.
pub const LOCAL_AGENT: &str = "local";

/// Whether the `agentSelector` patterns select `agent`. A pattern is a glob
/// (`*` matches any run of characters); `!pattern` excludes what it
/// matches, and wins over any other pattern. Patterns that only exclude
/// select every other agent; no patterns select every agent.
pub fn selects(patterns: &[String], agent: &str) -> bool {
    let mut positive = false;
    let mut included = false;
    for pattern in patterns.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
        match pattern.strip_prefix('!') {
            Some(excluded) => {
                if quarterdeck_crds::glob::matches(excluded.trim(), agent) {
                    return false;
                }
            }
            None => {
                positive = true;
                included |= quarterdeck_crds::glob::matches(pattern, agent);
            }
        }
    }
    included || !positive
}

/// Why a canary does not run here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Held {
    /// `spec.replicas` is 0.
    Paused,
    /// Its `agentSelector` does not select this operator.
    Elsewhere,
}

/// Whether and why a canary with these settings does not run here.
pub fn held(paused: bool, agent_selector: &[String]) -> Option<Held> {
    if paused {
        Some(Held::Paused)
    } else if !selects(agent_selector, LOCAL_AGENT) {
        Some(Held::Elsewhere)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(patterns: &[&str], agent: &str) -> bool {
        let patterns: Vec<String> = patterns.iter().map(|p| (*p).to_owned()).collect();
        selects(&patterns, agent)
    }

    #[test]
    fn selectors_include_by_glob_and_exclude_with_a_bang() {
        assert!(sel(&[], "local"));
        assert!(sel(&["local"], "local"));
        assert!(sel(&["eu-west", "local"], "local"));
        assert!(!sel(&["eu-west"], "local"));
        assert!(sel(&["*"], "local"));
        assert!(sel(&["lo*"], "local"));
        // An exclusion wins, whatever the order.
        assert!(!sel(&["*", "!local"], "local"));
        assert!(!sel(&["!local", "*"], "local"));
        assert!(!sel(&["!lo*"], "local"));
        // Only exclusions: every other agent.
        assert!(sel(&["!eu-*"], "local"));
        assert!(!sel(&["!eu-*"], "eu-west"));
        // Blanks are ignored; spaces around a pattern too.
        assert!(sel(&[" local "], "local"));
        assert!(sel(&["", "  "], "local"));
        assert!(!sel(&["! local"], "local"));
    }

    #[test]
    fn a_canary_is_held_when_paused_or_selected_elsewhere() {
        let none: Vec<String> = Vec::new();
        let remote = vec!["eu-*".to_owned()];
        assert_eq!(held(false, &none), None);
        assert_eq!(held(true, &none), Some(Held::Paused));
        assert_eq!(held(false, &remote), Some(Held::Elsewhere));
        assert_eq!(held(true, &remote), Some(Held::Paused));
        assert_eq!(held(false, &["local".to_owned()]), None);
    }
}
