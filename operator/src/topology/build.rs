//! A topology's spec as a tree of components: the root (the topology's own
//! fields), its `components` nested to any depth, `lookup` components
//! replaced by what their lookup emits, and children grouped by `groupBy`.
//! Each component gets its stable id here.

use std::collections::HashSet;

use serde_json::{Map, Value, json};
use uuid::Uuid;

use quarterdeck_store::topology_runs::DueTopology;

use super::lookup::LookupError;

/// The type of the components `groupBy` adds when it names none.
const GROUP_TYPE: &str = "Group";

/// One component of the tree, parents before their children.
#[derive(Debug, Clone)]
pub struct Node {
    pub id: Uuid,
    pub parent: Option<usize>,
    /// Dot-separated ancestor ids, root first ('' for the root).
    pub path: String,
    /// Where the component is in the spec, for messages (`components[0].components[2]`).
    pub at: String,
    pub name: String,
    pub type_: Option<String>,
    /// The component's spec without its `components`.
    pub spec: Map<String, Value>,
    /// The `type/name` segments from the root, the input of the id.
    key: String,
}

/// The tree and what went wrong building it (the rest is still built).
#[derive(Debug, Default)]
pub struct Built {
    pub nodes: Vec<Node>,
    pub warnings: Vec<String>,
    ids: HashSet<Uuid>,
}

/// Expands a component with `lookup` into the components that replace it.
#[allow(async_fn_in_trait)] // implemented and called in this crate only, with concrete types
pub trait Expand {
    async fn expand(&self, component: &Value) -> Result<Vec<Value>, LookupError>;
}

/// The stable id of a component: UUID v5 in the topology's id of its path of
/// `type/name` segments from the root.
pub fn component_id(topology: Uuid, key: &str) -> Uuid {
    Uuid::new_v5(&topology, key.as_bytes())
}

/// The root component's spec: the topology's own fields under the names
/// components use (`label` is its text, `id` its external id).
pub fn root_spec(topology: &DueTopology) -> Map<String, Value> {
    let spec = topology.spec.0.as_object().cloned().unwrap_or_default();
    let mut root = Map::new();
    root.insert("name".into(), json!(topology.name));
    root.insert("namespace".into(), json!(topology.namespace));
    for (from, to) in [
        ("type", "type"),
        ("icon", "icon"),
        ("owner", "owner"),
        ("label", "text"),
        ("text", "text"),
        ("tooltip", "tooltip"),
        ("id", "externalID"),
        ("properties", "properties"),
        ("configs", "configs"),
        ("healthExpr", "healthExpr"),
        ("statusExpr", "statusExpr"),
        ("groupBy", "groupBy"),
        ("components", "components"),
    ] {
        if let Some(value) = spec.get(from).filter(|v| !v.is_null())
            && !root.contains_key(to)
        {
            root.insert(to.into(), value.clone());
        }
    }
    root
}

/// Builds the tree of `root` (a root spec) for `topology`.
pub async fn build(topology: Uuid, root: Map<String, Value>, lookup: &impl Expand) -> Built {
    let mut built = Built::default();
    // (parent, component spec, where it is)
    let mut pending: Vec<(Option<usize>, Value, String)> =
        vec![(None, Value::Object(root), String::new())];
    while let Some((parent, spec, at)) = pending.pop() {
        let Value::Object(mut spec) = spec else {
            built
                .warnings
                .push(format!("{at}: a component must be an object"));
            continue;
        };
        let children = match spec.remove("components") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(list)) => list,
            Some(_) => {
                built
                    .warnings
                    .push(format!("{}: must be a list", join(&at, "components")));
                Vec::new()
            }
        };
        let Some(index) = add(topology, &mut built, parent, spec, &at) else {
            continue;
        };
        let mut expanded = Vec::with_capacity(children.len());
        for (i, child) in children.into_iter().enumerate() {
            let place = format!("{}[{i}]", join(&at, "components"));
            if child.get("lookup").is_some_and(|l| !l.is_null()) {
                match lookup.expand(&child).await {
                    Ok(emitted) => {
                        expanded.extend(emitted.into_iter().enumerate().map(|(j, mut c)| {
                            if let Some(c) = c.as_object_mut() {
                                c.remove("lookup");
                                c.remove("forEach");
                            }
                            (c, format!("{place}.lookup[{j}]"))
                        }))
                    }
                    Err(e) if e.field().is_empty() => built.warnings.push(format!("{place}{e}")),
                    Err(e) => built.warnings.push(format!("{place}.{e}")),
                }
            } else {
                expanded.push((child, place));
            }
        }
        let grouped = group(&mut built, index, expanded, topology);
        // Reversed so the stack builds siblings in spec order.
        for (parent, child, place) in grouped.into_iter().rev() {
            pending.push((Some(parent), child, place));
        }
    }
    built
}

fn join(at: &str, field: &str) -> String {
    if at.is_empty() {
        field.to_owned()
    } else {
        format!("{at}.{field}")
    }
}

/// Adds one component under `parent`; `None` (with a warning) when it has no
/// name or a sibling already has its type and name.
fn add(
    topology: Uuid,
    built: &mut Built,
    parent: Option<usize>,
    spec: Map<String, Value>,
    at: &str,
) -> Option<usize> {
    let text = |field: &str| {
        spec.get(field)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    let Some(name) = text("name").map(str::to_owned) else {
        built
            .warnings
            .push(format!("{}: a component needs a name", join(at, "name")));
        return None;
    };
    let type_ = text("type").map(str::to_owned);
    let segment = format!("{}/{name}", type_.as_deref().unwrap_or_default());
    let (key, path) = match parent.map(|p| &built.nodes[p]) {
        Some(p) => (
            format!("{}/{segment}", p.key),
            if p.path.is_empty() {
                p.id.to_string()
            } else {
                format!("{}.{}", p.path, p.id)
            },
        ),
        None => (segment, String::new()),
    };
    let id = component_id(topology, &key);
    if !built.ids.insert(id) {
        built
            .warnings
            .push(format!("{at}: another component under the same parent has type {:?} and name {name:?}; skipped", type_.as_deref().unwrap_or_default()));
        return None;
    }
    built.nodes.push(Node {
        id,
        parent,
        path,
        at: at.to_owned(),
        name,
        type_,
        spec,
        key,
    });
    Some(built.nodes.len() - 1)
}

/// The children of `parent`, under a component per value of its `groupBy`
/// (a label of each child, `tag` or `label`, or a field of it, `field`); a
/// child without the value stays under `parent`.
fn group(
    built: &mut Built,
    parent: usize,
    children: Vec<(Value, String)>,
    topology: Uuid,
) -> Vec<(usize, Value, String)> {
    let by = built.nodes[parent].spec.get("groupBy").cloned();
    let Some(by) = by.filter(|b| !b.is_null()) else {
        return children
            .into_iter()
            .map(|(c, at)| (parent, c, at))
            .collect();
    };
    let at = join(&built.nodes[parent].at, "groupBy");
    let text = |field: &str| by.get(field).and_then(Value::as_str).map(str::to_owned);
    // A label of each child, or a field of it.
    let (key, in_labels) = match (text("tag").or_else(|| text("label")), text("field")) {
        (Some(key), _) => (key, true),
        (None, Some(field)) => (field, false),
        (None, None) => {
            built
                .warnings
                .push(format!("{at}: needs tag, label or field"));
            return children
                .into_iter()
                .map(|(c, at)| (parent, c, at))
                .collect();
        }
    };
    let value_of = |c: &Value| {
        let holder = if in_labels { c.get("labels")? } else { c };
        scalar(holder.get(&key)?)
    };
    let group_type = text("type").unwrap_or_else(|| GROUP_TYPE.to_owned());
    let mut groups: Vec<(String, usize)> = Vec::new();
    let mut out = Vec::with_capacity(children.len());
    for (child, place) in children {
        let Some(value) = value_of(&child) else {
            out.push((parent, child, place));
            continue;
        };
        let index = match groups.iter().find(|(v, _)| *v == value) {
            Some((_, index)) => *index,
            None => {
                let mut spec = Map::new();
                spec.insert("name".into(), json!(value));
                spec.insert("type".into(), json!(group_type));
                spec.insert("labels".into(), json!({ key.clone(): value }));
                if let Some(icon) = by.get("icon") {
                    spec.insert("icon".into(), icon.clone());
                }
                let Some(index) = add(
                    topology,
                    built,
                    Some(parent),
                    spec,
                    &format!("{at}[{value}]"),
                ) else {
                    out.push((parent, child, place));
                    continue;
                };
                groups.push((value, index));
                index
            }
        };
        out.push((index, child, place));
    }
    out
}

/// A label or field value as text.
fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct NoLookup;
    impl Expand for NoLookup {
        async fn expand(&self, _: &Value) -> Result<Vec<Value>, LookupError> {
            Ok(vec![
                json!({"name": "found", "type": "Pod", "lookup": {"x": 1}}),
            ])
        }
    }

    fn spec(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[tokio::test]
    async fn nested_paths_ids_and_lookups() {
        let t = Uuid::from_u128(1);
        let built = build(
            t,
            spec(json!({"name": "root", "type": "Root", "components": [
                {"name": "a", "type": "App", "components": [{"name": "b", "type": "Db"}]},
                {"name": "c", "lookup": {"catalog": []}},
                {"name": "a", "type": "App"},
                {"type": "Nameless"},
            ]})),
            &NoLookup,
        )
        .await;
        let names: Vec<&str> = built.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["root", "a", "b", "found"]);
        let root = &built.nodes[0];
        assert_eq!(root.id, component_id(t, "Root/root"));
        assert_eq!(root.path, "");
        assert_eq!(built.nodes[2].id, component_id(t, "Root/root/App/a/Db/b"));
        assert_eq!(
            built.nodes[2].path,
            format!("{}.{}", root.id, built.nodes[1].id)
        );
        assert_eq!(built.nodes[3].parent, Some(0));
        assert!(!built.nodes[3].spec.contains_key("lookup"));
        assert_eq!(built.warnings.len(), 2, "{:?}", built.warnings);
        assert!(
            built.warnings[0].starts_with("components[2]: another component"),
            "{:?}",
            built.warnings
        );
        assert!(
            built.warnings[1].starts_with("components[3].name"),
            "{:?}",
            built.warnings
        );
    }

    #[tokio::test]
    async fn group_by_a_label() {
        let built = build(
            Uuid::from_u128(1),
            spec(
                json!({"name": "root", "groupBy": {"tag": "zone"}, "components": [
                    {"name": "x", "labels": {"zone": "eu"}},
                    {"name": "y", "labels": {"zone": "us"}},
                    {"name": "z", "labels": {"zone": "eu"}},
                    {"name": "w"},
                ]}),
            ),
            &NoLookup,
        )
        .await;
        let shape: Vec<(String, Option<String>)> = built
            .nodes
            .iter()
            .map(|n| {
                (
                    n.name.clone(),
                    n.parent.map(|p| built.nodes[p].name.clone()),
                )
            })
            .collect();
        let pair = |a: &str, b: Option<&str>| (a.to_owned(), b.map(str::to_owned));
        for expected in [
            pair("eu", Some("root")),
            pair("us", Some("root")),
            pair("x", Some("eu")),
            pair("z", Some("eu")),
            pair("y", Some("us")),
            pair("w", Some("root")),
        ] {
            assert!(shape.contains(&expected), "{expected:?} in {shape:?}");
        }
        assert_eq!(built.nodes[1].type_.as_deref(), Some(GROUP_TYPE));
    }
}
