//! Name patterns of selectors (`namespace: kube-*`, `name: *-canary`,
//! agents `prod-*`): `*` matches any run of characters, everything else
//! itself.

/// Whether `text` matches `pattern`.
pub fn matches(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let others: Vec<&str> = parts.collect();
    let Some((last, middle)) = others.split_last() else {
        // No `*`: the pattern is the whole text.
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn stars_match_any_run_and_the_rest_itself() {
        assert!(matches("kube-*", "kube-system"));
        assert!(matches("*-canary", "api-canary"));
        assert!(matches("a*b*c", "axxbyyc"));
        assert!(!matches("a*b*c", "axxbyy"));
        assert!(matches("exact", "exact"));
        assert!(!matches("exact", "exactly"));
        assert!(!matches("loc", "local"));
        assert!(matches("*", ""));
        assert!(matches("*", "anything"));
        // The last part may not reuse what a middle part matched.
        assert!(!matches("a*bc*c", "abc"));
        assert!(matches("é*ü", "éaü"));
    }
}
