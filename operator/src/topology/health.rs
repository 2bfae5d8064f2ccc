//! Component health: a component's own (the worst of what it is linked to)
//! and the rollup of its children by the spec's group status.

use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Health {
    Unknown,
    Healthy,
    Warning,
    Unhealthy,
}

impl Health {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Healthy => "healthy",
            Self::Unhealthy => "unhealthy",
            Self::Warning => "warning",
            Self::Unknown => "unknown",
        }
    }

    /// A health text (`healthy`, `unhealthy`, `warning`, `unknown`) or a
    /// boolean (true healthy); `None` for anything else.
    pub fn parse(value: &Value) -> Option<Self> {
        match value {
            Value::Bool(true) => Some(Self::Healthy),
            Value::Bool(false) => Some(Self::Unhealthy),
            Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
                "healthy" => Some(Self::Healthy),
                "unhealthy" => Some(Self::Unhealthy),
                "warning" => Some(Self::Warning),
                "unknown" => Some(Self::Unknown),
                _ => None,
            },
            _ => None,
        }
    }

    /// A stored health or check status; what it does not know is unknown.
    pub fn of(text: Option<&str>) -> Self {
        text.map(|t| Self::parse(&Value::String(t.to_owned())).unwrap_or(Self::Unknown))
            .unwrap_or(Self::Unknown)
    }
}

/// The worst of linked checks' and configs' health; unknown ones count only
/// when all are unknown.
pub fn worst(all: impl IntoIterator<Item = Health>) -> Health {
    all.into_iter().max().unwrap_or(Health::Unknown)
}

/// A component's health from its own and its children's (already rolled up):
/// its own unhealthy wins; otherwise, of the known ones, all healthy is
/// healthy, all unhealthy is unhealthy, and any other mix is warning.
pub fn rollup(own: Health, children: impl IntoIterator<Item = Health>) -> Health {
    if own == Health::Unhealthy {
        return Health::Unhealthy;
    }
    let known: Vec<Health> = std::iter::once(own)
        .chain(children)
        .filter(|h| *h != Health::Unknown)
        .collect();
    match known.first() {
        None => Health::Unknown,
        Some(first) if known.iter().all(|h| h == first) && *first != Health::Warning => *first,
        Some(_) => Health::Warning,
    }
}

#[cfg(test)]
mod tests {
    use super::Health::*;
    use super::*;
    use serde_json::json;

    #[test]
    fn group_status_of_children() {
        assert_eq!(rollup(Unknown, []), Unknown);
        assert_eq!(rollup(Unknown, [Healthy, Healthy]), Healthy);
        assert_eq!(rollup(Unknown, [Unhealthy, Unhealthy]), Unhealthy);
        assert_eq!(rollup(Unknown, [Healthy, Unhealthy]), Warning);
        assert_eq!(rollup(Unknown, [Healthy, Warning]), Warning);
        assert_eq!(rollup(Unknown, [Warning]), Warning);
        assert_eq!(rollup(Unknown, [Healthy, Unknown]), Healthy);
        assert_eq!(rollup(Unknown, [Unknown, Unknown]), Unknown);
    }

    #[test]
    fn own_unhealthy_wins_and_own_health_joins_the_group() {
        assert_eq!(rollup(Unhealthy, [Healthy, Healthy]), Unhealthy);
        assert_eq!(rollup(Healthy, []), Healthy);
        assert_eq!(rollup(Healthy, [Unhealthy]), Warning);
        assert_eq!(rollup(Warning, [Healthy]), Warning);
    }

    #[test]
    fn worst_ignores_unknown_unless_all_are() {
        assert_eq!(worst([Healthy, Unknown]), Healthy);
        assert_eq!(worst([Healthy, Warning, Unknown]), Warning);
        assert_eq!(worst([Healthy, Unhealthy]), Unhealthy);
        assert_eq!(worst([Unknown]), Unknown);
        assert_eq!(worst([]), Unknown);
    }

    #[test]
    fn parses_texts_and_booleans() {
        assert_eq!(Health::parse(&json!("Healthy")), Some(Healthy));
        assert_eq!(Health::parse(&json!(false)), Some(Unhealthy));
        assert_eq!(Health::parse(&json!("fine")), None);
        assert_eq!(Health::of(None), Unknown);
    }
}
