//! `labelSelector` and `fieldSelector` parsing and matching.

use serde_json::Value;

/// One label requirement, as in `k8s.io/apimachinery/pkg/labels`.
#[derive(Debug, Clone, PartialEq)]
enum LabelRequirement {
    Exists(String),
    DoesNotExist(String),
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    GreaterThan(String, i64),
    LessThan(String, i64),
}

/// A parsed label selector; the empty selector matches everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct LabelSelector(Vec<LabelRequirement>);

/// Splits on commas that are not inside parentheses.
fn split_top_level(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

fn valid_key(key: &str) -> Result<String, String> {
    if key.is_empty()
        || key
            .chars()
            .any(|c| c.is_whitespace() || "=!(),<>".contains(c))
    {
        return Err(format!("invalid label key {key:?}"));
    }
    Ok(key.to_owned())
}

fn valid_value(value: &str) -> Result<String, String> {
    let value = value.trim();
    if value
        .chars()
        .any(|c| c.is_whitespace() || "=!(),<>".contains(c))
    {
        return Err(format!("invalid label value {value:?}"));
    }
    Ok(value.to_owned())
}

fn parse_requirement(raw: &str) -> Result<LabelRequirement, String> {
    let req = raw.trim();
    if req.is_empty() {
        return Err("empty requirement".into());
    }
    if let Some(key) = req.strip_prefix('!') {
        return Ok(LabelRequirement::DoesNotExist(valid_key(key.trim())?));
    }
    if let Some(open) = req.find('(') {
        let Some(inner) = req[open + 1..].strip_suffix(')') else {
            return Err(format!("unterminated value set in {req:?}"));
        };
        let mut words = req[..open].split_whitespace();
        let (Some(key), Some(op), None) = (words.next(), words.next(), words.next()) else {
            return Err(format!(
                "expected `key in (..)` or `key notin (..)`, got {req:?}"
            ));
        };
        let values = inner
            .split(',')
            .map(valid_value)
            .collect::<Result<Vec<_>, _>>()?;
        if values.iter().all(String::is_empty) {
            return Err(format!("empty value set in {req:?}"));
        }
        let key = valid_key(key)?;
        return match op {
            "in" => Ok(LabelRequirement::In(key, values)),
            "notin" => Ok(LabelRequirement::NotIn(key, values)),
            other => Err(format!("unknown set operator {other:?}")),
        };
    }
    for (op, build) in [
        (
            "!=",
            LabelRequirement::NotEquals as fn(String, String) -> LabelRequirement,
        ),
        ("==", LabelRequirement::Equals),
        ("=", LabelRequirement::Equals),
    ] {
        if let Some((key, value)) = req.split_once(op) {
            return Ok(build(valid_key(key.trim())?, valid_value(value)?));
        }
    }
    for (op, greater) in [(">", true), ("<", false)] {
        if let Some((key, value)) = req.split_once(op) {
            let n: i64 = value
                .trim()
                .parse()
                .map_err(|_| format!("{value:?} is not an integer in {req:?}"))?;
            let key = valid_key(key.trim())?;
            return Ok(if greater {
                LabelRequirement::GreaterThan(key, n)
            } else {
                LabelRequirement::LessThan(key, n)
            });
        }
    }
    Ok(LabelRequirement::Exists(valid_key(req)?))
}

impl LabelSelector {
    /// Parses the `labelSelector` query parameter.
    pub(crate) fn parse(selector: &str) -> Result<Self, String> {
        if selector.trim().is_empty() {
            return Ok(Self::default());
        }
        split_top_level(selector)
            .into_iter()
            .map(parse_requirement)
            .collect::<Result<Vec<_>, _>>()
            .map(Self)
            .map_err(|e| format!("unable to parse labelSelector {selector:?}: {e}"))
    }

    /// Whether an object's `metadata.labels` satisfy every requirement.
    pub(crate) fn matches(&self, object: &Value) -> bool {
        let labels = object.pointer("/metadata/labels");
        let label = |key: &str| labels.and_then(|l| l.get(key)).and_then(Value::as_str);
        self.0.iter().all(|req| match req {
            LabelRequirement::Exists(k) => label(k).is_some(),
            LabelRequirement::DoesNotExist(k) => label(k).is_none(),
            LabelRequirement::Equals(k, v) => label(k) == Some(v.as_str()),
            LabelRequirement::NotEquals(k, v) => label(k) != Some(v.as_str()),
            LabelRequirement::In(k, vs) => label(k).is_some_and(|l| vs.iter().any(|v| v == l)),
            LabelRequirement::NotIn(k, vs) => !label(k).is_some_and(|l| vs.iter().any(|v| v == l)),
            LabelRequirement::GreaterThan(k, n) => label(k)
                .and_then(|l| l.parse::<i64>().ok())
                .is_some_and(|l| l > *n),
            LabelRequirement::LessThan(k, n) => label(k)
                .and_then(|l| l.parse::<i64>().ok())
                .is_some_and(|l| l < *n),
        })
    }
}

/// One `path=value` / `path!=value` term of a field selector.
#[derive(Debug, Clone, PartialEq)]
struct FieldRequirement {
    path: Vec<String>,
    value: String,
    equal: bool,
}

/// A parsed field selector; the empty selector matches everything.
///
/// `metadata.name` and `metadata.namespace` behave as on the real server; any
/// other dotted path is compared leniently against the object's JSON (missing
/// fields compare as the empty string) instead of being rejected.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct FieldSelector(Vec<FieldRequirement>);

impl FieldSelector {
    /// Parses the `fieldSelector` query parameter.
    pub(crate) fn parse(selector: &str) -> Result<Self, String> {
        if selector.trim().is_empty() {
            return Ok(Self::default());
        }
        let mut reqs = Vec::new();
        for term in selector.split(',') {
            let term = term.trim();
            let (path, value, equal) = if let Some((p, v)) = term.split_once("!=") {
                (p, v, false)
            } else if let Some((p, v)) = term.split_once("==") {
                (p, v, true)
            } else if let Some((p, v)) = term.split_once('=') {
                (p, v, true)
            } else {
                return Err(format!(
                    "invalid fieldSelector term {term:?}: expected `field=value` or `field!=value`"
                ));
            };
            let path = path.trim();
            if path.is_empty() || path.split('.').any(str::is_empty) {
                return Err(format!("invalid field path {path:?} in fieldSelector"));
            }
            reqs.push(FieldRequirement {
                path: path.split('.').map(str::to_owned).collect(),
                value: value.trim().to_owned(),
                equal,
            });
        }
        Ok(Self(reqs))
    }

    /// Whether the object satisfies every term.
    pub(crate) fn matches(&self, object: &Value) -> bool {
        self.0.iter().all(|req| {
            let found = req.path.iter().try_fold(object, |node, key| node.get(key));
            let actual = match found {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
            };
            (actual == req.value) == req.equal
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(labels: Value) -> Value {
        json!({"metadata": {"name": "n1", "namespace": "ns1", "labels": labels}, "spec": {"replicas": 3}})
    }

    #[test]
    fn label_selector_operators() {
        let o = obj(json!({"app": "web", "tier": "front", "rank": "5"}));
        let yes = [
            "",
            "app",
            "!missing",
            "app=web",
            "app==web",
            "app!=db",
            "missing!=x",
            "tier in (front, back)",
            "tier notin (back)",
            "missing notin (x)",
            "app=web,tier in (front),!missing",
            "rank>4",
            "rank<6",
        ];
        for s in yes {
            let sel = LabelSelector::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
            assert!(sel.matches(&o), "{s} should match");
        }
        let no = [
            "missing",
            "!app",
            "app=db",
            "app!=web",
            "tier in (back)",
            "tier notin (front,back)",
            "missing in (x)",
            "app=web,tier=back",
            "rank>5",
        ];
        for s in no {
            let sel = LabelSelector::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
            assert!(!sel.matches(&o), "{s} should not match");
        }
        assert!(
            LabelSelector::parse("app=web").is_ok_and(|s| !s.matches(&json!({"metadata": {}})))
        );
    }

    #[test]
    fn label_selector_rejects_garbage() {
        for s in [
            "app in (a",
            "app is (a)",
            "a b",
            "=x",
            "tier in ()",
            "app=a b",
            "r>x",
        ] {
            assert!(LabelSelector::parse(s).is_err(), "{s} should be rejected");
        }
    }

    #[test]
    fn field_selector_terms() {
        let o = obj(json!({}));
        for s in [
            "metadata.name=n1",
            "metadata.name==n1,metadata.namespace=ns1",
            "metadata.name!=other",
            "spec.replicas=3",
            "status.phase=",
        ] {
            let sel = FieldSelector::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
            assert!(sel.matches(&o), "{s} should match");
        }
        for s in ["metadata.name=n2", "metadata.namespace!=ns1"] {
            let sel = FieldSelector::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
            assert!(!sel.matches(&o), "{s} should not match");
        }
        for s in ["metadata.name", "=x", "metadata..name=x"] {
            assert!(FieldSelector::parse(s).is_err(), "{s} should be rejected");
        }
    }
}
