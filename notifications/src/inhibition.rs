//! A rule's `inhibitions` (Mission Control's): a send about a resource whose
//! type is in `to` is held back when the rule already tells about a related
//! resource of type `from`.

use std::time::Duration;

use quarterdeck_store::catalog_queries::Direction;
use serde_json::Value;

/// How long a send about the `from` resource inhibits, for a rule without a
/// `repeatInterval` (decision 92.2).
pub const DEFAULT_WINDOW: Duration = Duration::from_secs(3600);

/// One entry of `inhibitions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inhibition {
    /// The type of the resource that inhibits (`Kubernetes::Deployment`).
    pub from: String,
    /// The types inhibited.
    pub to: Vec<String>,
    /// How the inhibited resources relate to the `from` resource: `Outgoing`,
    /// its children or the items it relates to; `Incoming`, its parents or
    /// the items relating to it; `All`, either.
    pub direction: Direction,
    /// Relationship hops walked, 1 (direct) by default.
    pub depth: u32,
    /// Whether soft relationships count, besides parents and children.
    pub soft: bool,
}

impl Inhibition {
    /// The way from an inhibited resource to its `from` resource: the
    /// other way round.
    pub fn walk_back(&self) -> Direction {
        self.direction.reversed()
    }

    /// Whether a resource of `resource_type` may be inhibited by this entry.
    pub fn holds_back(&self, resource_type: &str) -> bool {
        self.to.iter().any(|t| t == resource_type)
    }
}

/// A problem with an entry, named by its field (`inhibitions[0].direction`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub field: String,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

/// Reads `inhibitions` as stored (a list, or null for none); every problem
/// when it does not read.
pub fn parse(value: Option<&Value>) -> Result<Vec<Inhibition>, Vec<Problem>> {
    let items = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(vec![Problem {
                field: "inhibitions".into(),
                message: "must be a list".into(),
            }]);
        }
    };
    let mut problems = Vec::new();
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let mut problem = |field: &str, message: &str| {
            problems.push(Problem {
                field: format!("inhibitions[{i}]{field}"),
                message: message.into(),
            })
        };
        let Some(item) = item.as_object() else {
            problem("", "must be an object");
            continue;
        };
        let from = item
            .get("from")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty());
        if from.is_none() {
            problem(".from", "required: the resource type that inhibits");
        }
        let to: Option<Vec<String>> = item
            .get("to")
            .and_then(Value::as_array)
            .filter(|to| !to.is_empty())
            .and_then(|to| {
                to.iter()
                    .map(|t| {
                        t.as_str()
                            .map(str::trim)
                            .filter(|s| !s.is_empty())
                            .map(str::to_owned)
                    })
                    .collect()
            });
        if to.is_none() {
            problem(".to", "required: a list of resource types inhibited");
        }
        let direction = match item.get("direction").and_then(Value::as_str) {
            Some("outgoing") => Some(Direction::Outgoing),
            Some("incoming") => Some(Direction::Incoming),
            Some("all") => Some(Direction::All),
            _ => {
                problem(".direction", "must be one of incoming, outgoing, all");
                None
            }
        };
        let depth = match item.get("depth") {
            None | Some(Value::Null) => Some(1),
            Some(d) => {
                let depth = d
                    .as_u64()
                    .and_then(|d| u32::try_from(d).ok())
                    .filter(|d| *d >= 1);
                if depth.is_none() {
                    problem(".depth", "must be a whole number, 1 or more");
                }
                depth
            }
        };
        let soft = match item.get("soft") {
            None | Some(Value::Null) => Some(false),
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => {
                problem(".soft", "must be true or false");
                None
            }
        };
        if let (Some(from), Some(to), Some(direction), Some(depth), Some(soft)) =
            (from, to, direction, depth, soft)
        {
            out.push(Inhibition {
                from: from.to_owned(),
                to,
                direction,
                depth,
                soft,
            });
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn entries_read_with_their_defaults() {
        let read = parse(Some(&json!([
            {"from": "Kubernetes::Deployment", "to": ["Kubernetes::Pod"], "direction": "outgoing"},
            {"from": "Kubernetes::Node", "to": ["Kubernetes::Pod"], "direction": "all",
             "depth": 3, "soft": true}
        ])))
        .unwrap();
        assert_eq!(read[0].depth, 1);
        assert!(!read[0].soft);
        assert_eq!(read[0].walk_back(), Direction::Incoming);
        assert!(read[0].holds_back("Kubernetes::Pod"));
        assert!(!read[0].holds_back("Kubernetes::Deployment"));
        assert_eq!((read[1].depth, read[1].soft), (3, true));
        assert_eq!(read[1].walk_back(), Direction::All);
        assert_eq!(parse(None).unwrap(), Vec::new());
        assert_eq!(parse(Some(&Value::Null)).unwrap(), Vec::new());
    }

    #[test]
    fn problems_name_their_field() {
        let problems = parse(Some(&json!([
            {"to": [], "direction": "sideways", "depth": 0, "soft": "yes"},
            "Kubernetes::Pod"
        ])))
        .unwrap_err();
        let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "inhibitions[0].from",
                "inhibitions[0].to",
                "inhibitions[0].direction",
                "inhibitions[0].depth",
                "inhibitions[0].soft",
                "inhibitions[1]"
            ]
        );
        assert_eq!(
            problems[2].to_string(),
            "inhibitions[0].direction: must be one of incoming, outgoing, all"
        );
        assert!(parse(Some(&json!({"from": "x"}))).is_err());
    }
}
