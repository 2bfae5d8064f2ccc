//! The built tree as rows: each component's selectors resolved to the checks,
//! config items and components they pick, its properties (static, set by
//! their `lookup`, or from a linked config item), its own health (`health`,
//! `healthExpr`, else the worst of its checks and configs), rolled up with
//! its children's, and its status (`statusExpr`, else the health).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use quarterdeck_crds::common::ResourceSelector;
use quarterdeck_store::topology_runs::{
    self, CheckLink, ComponentLink, ComponentRow, ConfigLink, Target, Tree,
};
use serde_json::{Map, Value, json};
use sqlx::PgPool;
use uuid::Uuid;

use super::build::Node;
use super::health::{self, Health};
use super::lookup::{self, LookupContext, PropertyValue};

/// Property fields kept as written (Mission Control's Property).
const PROPERTY_FIELDS: &[&str] = &[
    "name", "label", "text", "value", "unit", "max", "min", "type", "color", "icon", "tooltip",
    "headline", "order", "links",
];
/// Statuses a `statusExpr` may give.
const STATUSES: &[&str] = &[
    "healthy",
    "unhealthy",
    "warning",
    "error",
    "info",
    "unknown",
];
/// Unhealthy links named in a component's status reason at most.
const REASONS_SHOWN: usize = 3;

/// What selectors are matched against, read once per run (each only when a
/// component selects from it).
#[derive(Default)]
pub struct Targets {
    checks: Option<Vec<Target>>,
    configs: Option<Vec<Target>>,
    components: Option<Vec<Target>>,
}

impl Targets {
    /// Reads the kinds the nodes select from.
    pub async fn load(
        pool: &PgPool,
        topology: Uuid,
        nodes: &[Node],
    ) -> Result<Self, quarterdeck_store::Error> {
        let uses = |field: &str| {
            nodes
                .iter()
                .any(|n| n.spec.get(field).is_some_and(|v| !v.is_null()))
        };
        let uses_configs = uses("configs")
            || nodes.iter().any(|n| {
                n.spec
                    .get("properties")
                    .and_then(Value::as_array)
                    .is_some_and(|ps| ps.iter().any(|p| p.get("configLookup").is_some()))
            });
        Ok(Self {
            checks: if uses("checks") {
                Some(topology_runs::checks(pool).await?)
            } else {
                None
            },
            configs: if uses_configs {
                Some(topology_runs::configs(pool).await?)
            } else {
                None
            },
            components: if uses("selectors") {
                Some(topology_runs::components(pool, topology).await?)
            } else {
                None
            },
        })
    }
}

/// Resolves `nodes` into the rows of `topology`, adding what went wrong to `warnings`.
pub async fn resolve(
    ctx: &LookupContext<'_>,
    topology: Uuid,
    nodes: &[Node],
    targets: &Targets,
    warnings: &mut Vec<String>,
) -> Tree {
    let mut tree = Tree {
        topology_id: topology,
        ..Tree::default()
    };
    let mut own: Vec<(Health, Option<String>)> = Vec::with_capacity(nodes.len());
    let mut expressions = Vec::with_capacity(nodes.len());
    for node in nodes {
        let mut warn = |field: &str, message: String| {
            let at = if node.at.is_empty() {
                field.to_owned()
            } else {
                format!("{}.{field}", node.at)
            };
            warnings.push(format!("{at}: {message}"));
        };
        let checks = select_checks(node, targets, &mut tree.checks, &mut warn);
        let configs = select_configs(node, targets, &mut tree.configs, &mut warn);
        select_components(node, targets, &mut tree.relationships, &mut warn);
        let properties = properties(ctx, node, targets, &configs, &mut warn).await;
        let env = environment(node, &checks, &configs, properties.as_ref());
        let linked = checks
            .iter()
            .map(|t| {
                (
                    t,
                    Health::of(t.facts.0.get("status").and_then(Value::as_str)),
                )
            })
            .chain(configs.iter().map(|t| {
                (
                    t,
                    Health::of(t.facts.0.get("health").and_then(Value::as_str)),
                )
            }));
        let mut reasons = Vec::new();
        let mut healths = Vec::new();
        for (target, h) in linked {
            if h == Health::Unhealthy && reasons.len() < REASONS_SHOWN {
                let name = target
                    .facts
                    .0
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                reasons.push(format!("{name} is unhealthy"));
            }
            healths.push(h);
        }
        let health = match own_health(node, &env, &mut warn) {
            Some(h) => h,
            None => health::worst(healths),
        };
        own.push((
            health,
            (health == Health::Unhealthy && !reasons.is_empty()).then(|| reasons.join(", ")),
        ));
        expressions.push((env, properties));
    }
    relationships(nodes, &mut tree.relationships, warnings);

    // Children follow their parents, so one pass from the end rolls health up.
    let mut children: Vec<Vec<Health>> = vec![Vec::new(); nodes.len()];
    let mut rolled = vec![Health::Unknown; nodes.len()];
    for (i, node) in nodes.iter().enumerate().rev() {
        rolled[i] = health::rollup(own[i].0, children[i].iter().copied());
        if let Some(p) = node.parent {
            children[p].push(rolled[i]);
        }
    }
    for (i, (node, (env, properties))) in nodes.iter().zip(expressions).enumerate() {
        let mut warn = |field: &str, message: String| {
            let at = if node.at.is_empty() {
                field.to_owned()
            } else {
                format!("{}.{field}", node.at)
            };
            warnings.push(format!("{at}: {message}"));
        };
        let mut env = env;
        if let Some(component) = env.get_mut("component").and_then(Value::as_object_mut) {
            component.insert("health".into(), json!(rolled[i].as_str()));
        }
        let status = status(node, &env, &mut warn).unwrap_or_else(|| rolled[i].as_str().to_owned());
        tree.components.push(row(
            node,
            nodes,
            rolled[i],
            status,
            own[i].1.take(),
            properties,
            &mut warn,
        ));
    }
    dedupe(&mut tree);
    tree
}

fn text(spec: &Map<String, Value>, field: &str) -> Option<String> {
    spec.get(field)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

fn row(
    node: &Node,
    nodes: &[Node],
    health: Health,
    status: String,
    reason: Option<String>,
    properties: Option<Value>,
    warn: &mut impl FnMut(&str, String),
) -> ComponentRow {
    let spec = &node.spec;
    let config_id = text(spec, "configID").and_then(|id| match Uuid::parse_str(&id) {
        Ok(id) => Some(id),
        Err(_) => {
            warn("configID", format!("{id:?} is not a config item id"));
            None
        }
    });
    let labels = match spec.get("labels") {
        None | Some(Value::Null) => json!({}),
        Some(Value::Object(m)) => Value::Object(m.clone()),
        Some(_) => {
            warn("labels", "must be a map of texts".into());
            json!({})
        }
    };
    let external_id = match spec.get("externalID").or_else(|| spec.get("id")) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let given = |field: &str| spec.get(field).filter(|v| !v.is_null()).cloned();
    ComponentRow {
        id: node.id,
        parent_id: node.parent.map(|p| nodes[p].id),
        path: node.path.clone(),
        name: node.name.clone(),
        type_: node.type_.clone(),
        text: text(spec, "text"),
        icon: text(spec, "icon"),
        owner: text(spec, "owner"),
        tooltip: text(spec, "tooltip"),
        description: text(spec, "description"),
        lifecycle: text(spec, "lifecycle"),
        namespace: text(spec, "namespace"),
        external_id,
        config_id,
        labels,
        hidden: spec.get("hidden").and_then(Value::as_bool).unwrap_or(false),
        status,
        health: health.as_str().to_owned(),
        status_reason: text(spec, "statusReason").or(reason),
        selectors: given("selectors"),
        configs: given("configs"),
        log_selectors: given("logs").or_else(|| given("logSelectors")),
        properties,
        summary: given("summary"),
    }
}

/// A stable short id of a selector as written.
fn selector_id(selector: &Value) -> String {
    Uuid::new_v5(&Uuid::NAMESPACE_OID, selector.to_string().as_bytes())
        .simple()
        .to_string()[..16]
        .to_owned()
}

fn list<'a>(node: &'a Node, field: &str, warn: &mut impl FnMut(&str, String)) -> &'a [Value] {
    match node.spec.get(field) {
        None | Some(Value::Null) => &[],
        Some(Value::Array(list)) => list,
        Some(_) => {
            warn(field, "must be a list".into());
            &[]
        }
    }
}

fn parse_selector(
    value: &Value,
    field: &str,
    warn: &mut impl FnMut(&str, String),
) -> Option<ResourceSelector> {
    match serde_json::from_value::<ResourceSelector>(value.clone()) {
        Ok(s) => Some(s),
        Err(e) => {
            warn(field, format!("not a resource selector: {e}"));
            None
        }
    }
}

/// `checks`: `{selector: ...}` entries (or bare selectors); `inline` canaries are not run.
fn select_checks<'t>(
    node: &Node,
    targets: &'t Targets,
    links: &mut Vec<CheckLink>,
    warn: &mut impl FnMut(&str, String),
) -> Vec<&'t Target> {
    let mut picked: Vec<&Target> = Vec::new();
    for (i, entry) in list(node, "checks", warn).iter().enumerate() {
        let field = format!("checks[{i}]");
        if entry.get("inline").is_some_and(|v| !v.is_null()) {
            warn(
                &format!("{field}.inline"),
                "inline canaries are not run; select the checks of a Canary instead".into(),
            );
        }
        let selector = match entry.get("selector") {
            Some(s) => s,
            None if entry.get("inline").is_some() => continue,
            None => entry,
        };
        let Some(parsed) = parse_selector(selector, &field, warn) else {
            continue;
        };
        let id = selector_id(selector);
        for target in targets
            .checks
            .iter()
            .flatten()
            .filter(|t| t.selected_by(&parsed))
        {
            if let Some(canary_id) = target.canary_id {
                links.push(CheckLink {
                    component_id: node.id,
                    check_id: target.target_id,
                    canary_id,
                    selector_id: id.clone(),
                });
            }
            if !picked.iter().any(|p| p.target_id == target.target_id) {
                picked.push(target);
            }
        }
    }
    picked
}

/// `configs`: resource selectors with the catalog's own keys (`type`, `class`,
/// `external_id`, `tags`).
fn select_configs<'t>(
    node: &Node,
    targets: &'t Targets,
    links: &mut Vec<ConfigLink>,
    warn: &mut impl FnMut(&str, String),
) -> Vec<&'t Target> {
    let mut picked: Vec<&Target> = Vec::new();
    for (i, entry) in list(node, "configs", warn).iter().enumerate() {
        let field = format!("configs[{i}]");
        let Some(matches) = config_matcher(entry, &field, warn) else {
            continue;
        };
        let id = selector_id(entry);
        for target in targets.configs.iter().flatten().filter(|t| matches(t)) {
            if !picked.iter().any(|p| p.target_id == target.target_id) {
                links.push(ConfigLink {
                    component_id: node.id,
                    config_id: target.target_id,
                    selector_id: id.clone(),
                });
                picked.push(target);
            }
        }
    }
    picked
}

/// A matcher of config items for one `configs` entry.
fn config_matcher(
    entry: &Value,
    field: &str,
    warn: &mut impl FnMut(&str, String),
) -> Option<impl Fn(&Target) -> bool> {
    let mut selector = entry.clone();
    let object = selector.as_object_mut()?;
    let type_ = object.remove("type");
    let class = object
        .remove("class")
        .and_then(|v| v.as_str().map(str::to_owned));
    let external_id = object
        .remove("external_id")
        .and_then(|v| v.as_str().map(str::to_owned));
    let tags = object.remove("tags");
    let mut parsed = parse_selector(&selector, field, warn)?;
    if let Some(t) = type_.as_ref().and_then(Value::as_str) {
        parsed.types.get_or_insert_with(Vec::new).push(t.to_owned());
    }
    if let Some(tags) = tags.as_ref().and_then(Value::as_object) {
        let pairs: Vec<String> = tags
            .iter()
            .map(|(k, v)| {
                format!(
                    "{k}={}",
                    v.as_str().map_or_else(|| v.to_string(), str::to_owned)
                )
            })
            .chain(parsed.tag_selector.take())
            .collect();
        parsed.tag_selector = Some(pairs.join(","));
    }
    // Only the catalog's own keys: selects like a name of '*'.
    if parsed == ResourceSelector::default() && (class.is_some() || external_id.is_some()) {
        parsed.name = Some("*".into());
    }
    Some(move |t: &Target| {
        t.selected_by(&parsed)
            && class
                .as_ref()
                .is_none_or(|c| t.class_name.as_ref() == Some(c))
            && external_id
                .as_ref()
                .is_none_or(|e| t.external_ids.as_ref().is_some_and(|ids| ids.contains(e)))
    })
}

/// `selectors`: components (of other topologies) linked to this one.
fn select_components(
    node: &Node,
    targets: &Targets,
    links: &mut Vec<ComponentLink>,
    warn: &mut impl FnMut(&str, String),
) {
    for (i, selector) in list(node, "selectors", warn).iter().enumerate() {
        let Some(parsed) = parse_selector(selector, &format!("selectors[{i}]"), warn) else {
            continue;
        };
        let id = selector_id(selector);
        for target in targets
            .components
            .iter()
            .flatten()
            .filter(|t| t.selected_by(&parsed))
        {
            links.push(ComponentLink {
                component_id: node.id,
                relationship_id: target.target_id,
                selector_id: id.clone(),
                relationship_path: None,
            });
        }
    }
}

/// `relationships`: `{ref, type}` naming another component of the tree by
/// id, external id or name.
fn relationships(nodes: &[Node], links: &mut Vec<ComponentLink>, warnings: &mut Vec<String>) {
    let mut by_ref: HashMap<String, Uuid> = HashMap::new();
    for node in nodes {
        by_ref.entry(node.name.clone()).or_insert(node.id);
        by_ref.insert(node.id.to_string(), node.id);
        if let Some(external) = text(&node.spec, "externalID") {
            by_ref.insert(external, node.id);
        }
    }
    for node in nodes {
        let Some(Value::Array(list)) = node.spec.get("relationships") else {
            continue;
        };
        for (i, entry) in list.iter().enumerate() {
            let at = format!(
                "{}relationships[{i}].ref",
                if node.at.is_empty() {
                    String::new()
                } else {
                    format!("{}.", node.at)
                }
            );
            let Some(reference) = entry.get("ref").and_then(Value::as_str) else {
                warnings.push(format!("{at}: required"));
                continue;
            };
            match by_ref.get(reference) {
                Some(related) => links.push(ComponentLink {
                    component_id: node.id,
                    relationship_id: *related,
                    selector_id: selector_id(entry),
                    relationship_path: entry.get("type").and_then(Value::as_str).map(str::to_owned),
                }),
                None => warnings.push(format!("{at}: no component {reference:?} in this topology")),
            }
        }
    }
}

/// `properties`: kept as written (numbers in `value`, other values as
/// `text`), set by their `lookup` (a property's fields, or properties in its
/// place) and `configLookup` (its `value`, from a linked config item).
async fn properties(
    ctx: &LookupContext<'_>,
    node: &Node,
    targets: &Targets,
    linked: &[&Target],
    warn: &mut impl FnMut(&str, String),
) -> Option<Value> {
    let list = list(node, "properties", warn);
    if list.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(list.len());
    for (i, property) in list.iter().enumerate() {
        let field = format!("properties[{i}]");
        let Some(spec) = property.as_object() else {
            warn(&field, "a property must be an object".into());
            continue;
        };
        let mut kept = property_fields(spec.clone());
        if let Some(lookup) = spec.get("lookup").filter(|v| !v.is_null()) {
            match lookup::property(lookup, &format!("{field}.lookup"), ctx).await {
                Ok(values) => {
                    let mut replaced: Option<Vec<Value>> = None;
                    for value in values {
                        match value {
                            PropertyValue::Fields(fields) => kept.extend(property_fields(fields)),
                            PropertyValue::Properties(list) => replaced
                                .get_or_insert_with(Vec::new)
                                .extend(list.into_iter().map(|p| normalized(property_fields(p)))),
                        }
                    }
                    if let Some(replaced) = replaced {
                        out.extend(replaced);
                        continue;
                    }
                }
                Err(e) => warn(e.field(), e.message()),
            }
        }
        if let Some(lookup) = spec.get("configLookup").filter(|v| !v.is_null()) {
            match config_lookup(ctx.pool, lookup, targets, linked).await {
                Ok(Some(value)) => kept.insert("value".into(), value),
                Ok(None) => None,
                Err(e) => {
                    warn(&format!("{field}.configLookup"), e);
                    None
                }
            };
        }
        out.push(normalized(kept));
    }
    Some(Value::Array(out))
}

/// The fields of a property that are kept (Mission Control's Property).
fn property_fields(fields: Map<String, Value>) -> Map<String, Value> {
    fields
        .into_iter()
        .filter(|(k, _)| PROPERTY_FIELDS.contains(&k.as_str()))
        .collect()
}

/// `value` a number: a numeric text becomes one, any other value goes to
/// `text` (unless the property has one).
fn normalized(mut property: Map<String, Value>) -> Value {
    match property.remove("value") {
        Some(Value::Number(n)) => {
            property.insert("value".into(), Value::Number(n));
        }
        Some(Value::String(s)) => match lookup::number(&s) {
            Some(n) => {
                property.insert("value".into(), n);
            }
            None => {
                property.entry("text").or_insert(Value::String(s));
            }
        },
        Some(Value::Null) | None => {}
        Some(other) => {
            property
                .entry("text")
                .or_insert(Value::String(other.to_string()));
        }
    }
    Value::Object(property)
}

/// A value of a config item: `config` (a selector; else the component's first
/// linked item) and `field` (JSONPath into its stored config). None while no
/// item matches: the catalog may not have scraped it yet, which is no fault
/// of the spec.
async fn config_lookup(
    pool: &PgPool,
    lookup: &Value,
    targets: &Targets,
    linked: &[&Target],
) -> Result<Option<Value>, String> {
    let field = lookup
        .get("field")
        .and_then(Value::as_str)
        .ok_or("field: required")?;
    let found = match lookup.get("config").or_else(|| lookup.get("id")) {
        Some(selector) => {
            let mut ignore = |_: &str, _: String| {};
            let matches = config_matcher(selector, "config", &mut ignore)
                .ok_or("config: not a resource selector")?;
            targets.configs.iter().flatten().find(|t| matches(t))
        }
        None => linked.first().copied(),
    };
    let Some(target) = found else {
        return Ok(None);
    };
    let config = topology_runs::config_of(pool, target.target_id)
        .await
        .map_err(|e| e.to_string())?
        .ok_or("the config item has no stored config")?;
    quarterdeck_checks::query_json_path(field, &config)
        .map(Some)
        .map_err(|e| format!("field: {e}"))
}

/// What `healthExpr` and `statusExpr` see: `component` (name, type, labels,
/// properties by name), `checks` and `configs` (id, name, type, status,
/// health, labels, tags).
fn environment(
    node: &Node,
    checks: &[&Target],
    configs: &[&Target],
    properties: Option<&Value>,
) -> Map<String, Value> {
    let by_name: BTreeMap<String, Value> = properties
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| {
            Some((
                p.get("name")?.as_str()?.to_owned(),
                p.get("value").or_else(|| p.get("text"))?.clone(),
            ))
        })
        .collect();
    let mut env = Map::new();
    env.insert(
        "component".into(),
        json!({
            "name": node.name,
            "type": node.type_,
            "labels": node.spec.get("labels").cloned().unwrap_or(json!({})),
            "properties": by_name,
        }),
    );
    env.insert(
        "checks".into(),
        Value::Array(checks.iter().map(|t| t.facts.0.clone()).collect()),
    );
    env.insert(
        "configs".into(),
        Value::Array(configs.iter().map(|t| t.facts.0.clone()).collect()),
    );
    env
}

/// `health` (a value) or `healthExpr` (CEL), when given and valid.
fn own_health(
    node: &Node,
    env: &Map<String, Value>,
    warn: &mut impl FnMut(&str, String),
) -> Option<Health> {
    if let Some(expr) = text(&node.spec, "healthExpr") {
        return match quarterdeck_checks::evaluate_cel(&expr, env) {
            Ok(value) => Health::parse(&value).or_else(|| {
                warn(
                    "healthExpr",
                    format!("gave {value}, not healthy, unhealthy, warning or unknown"),
                );
                None
            }),
            Err(e) => {
                warn("healthExpr", e);
                None
            }
        };
    }
    let value = node.spec.get("health").filter(|v| !v.is_null())?;
    Health::parse(value).or_else(|| {
        warn(
            "health",
            format!("{value} is not healthy, unhealthy, warning or unknown"),
        );
        None
    })
}

/// `statusExpr` (CEL, with the rolled-up health as `component.health`).
fn status(
    node: &Node,
    env: &Map<String, Value>,
    warn: &mut impl FnMut(&str, String),
) -> Option<String> {
    let expr = text(&node.spec, "statusExpr")?;
    match quarterdeck_checks::evaluate_cel(&expr, env) {
        Ok(Value::String(s)) if STATUSES.contains(&s.to_ascii_lowercase().as_str()) => {
            Some(s.to_ascii_lowercase())
        }
        Ok(value) => {
            warn(
                "statusExpr",
                format!("gave {value}, not one of {}", STATUSES.join(", ")),
            );
            None
        }
        Err(e) => {
            warn("statusExpr", e);
            None
        }
    }
}

/// One link per key: two selectors picking the same target link it once.
fn dedupe(tree: &mut Tree) {
    let mut seen = BTreeSet::new();
    tree.checks
        .retain(|l| seen.insert((l.component_id, l.check_id, l.selector_id.clone())));
    let mut seen = BTreeSet::new();
    tree.configs
        .retain(|l| seen.insert((l.component_id, l.config_id)));
    let mut seen = BTreeSet::new();
    tree.relationships
        .retain(|l| seen.insert((l.component_id, l.relationship_id, l.selector_id.clone())));
}
