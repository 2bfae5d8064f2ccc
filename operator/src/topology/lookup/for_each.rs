//! `forEach`: what every component a lookup emits gets.
//!
//! Its `components`, `configs`, `checks`, `selectors` and `relationships`
//! are added after the emitted component's own; its `properties` too, each
//! replacing an emitted property of the same name. Strings in them are
//! rendered first ([`super::template`]) with the emitted component as
//! `component` and its properties' values by name as `properties`.

use serde_json::{Map, Value};

use super::LookupError;
use super::template;

/// The lists `forEach` may hold.
const LISTS: &[&str] = &[
    "components",
    "properties",
    "configs",
    "checks",
    "selectors",
    "relationships",
];

/// A checked `forEach` (empty when the component has none).
#[derive(Debug, Default)]
pub(super) struct ForEach {
    lists: Vec<(&'static str, Value)>,
}

impl ForEach {
    pub(super) fn parse(value: Option<&Value>) -> Result<Self, LookupError> {
        let fields = match value {
            None | Some(Value::Null) => return Ok(Self::default()),
            Some(Value::Object(fields)) => fields,
            Some(_) => return Err(LookupError::spec("forEach", "must be an object")),
        };
        let mut lists = Vec::new();
        for (key, value) in fields {
            let field = format!("forEach.{key}");
            let Some(&name) = LISTS.iter().find(|l| **l == key.as_str()) else {
                return Err(LookupError::spec(
                    field,
                    format!("not supported (forEach takes {})", LISTS.join(", ")),
                ));
            };
            match value {
                Value::Null => {}
                Value::Array(_) => lists.push((name, value.clone())),
                _ => return Err(LookupError::spec(field, "must be a list")),
            }
        }
        Ok(Self { lists })
    }

    /// Adds the lists to `component` (emitted at `field`).
    pub(super) fn apply(
        &self,
        component: &mut Map<String, Value>,
        field: &str,
    ) -> Result<(), LookupError> {
        if self.lists.is_empty() {
            return Ok(());
        }
        let env = environment(component);
        for (name, list) in &self.lists {
            let Value::Array(items) = template::render(list, &env, &format!("forEach.{name}"))?
            else {
                continue;
            };
            let own = component
                .entry(*name)
                .or_insert_with(|| Value::Array(Vec::new()));
            if own.is_null() {
                *own = Value::Array(Vec::new());
            }
            let Value::Array(own) = own else {
                return Err(LookupError::spec(
                    format!("{field}.{name}"),
                    "must be a list",
                ));
            };
            if *name == "properties" {
                own.retain(|p| !items.iter().any(|i| same_name(i, p)));
            }
            own.extend(items);
        }
        Ok(())
    }
}

fn same_name(a: &Value, b: &Value) -> bool {
    matches!((a.get("name"), b.get("name")), (Some(x), Some(y)) if x == y)
}

/// `component` and `properties` (each property's `value`, else its `text`, by name).
fn environment(component: &Map<String, Value>) -> Map<String, Value> {
    let properties: Map<String, Value> = component
        .get("properties")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| {
            let name = p.get("name")?.as_str()?.to_owned();
            let value = p
                .get("value")
                .filter(|v| !v.is_null())
                .or_else(|| p.get("text"))
                .cloned()
                .unwrap_or(Value::Null);
            Some((name, value))
        })
        .collect();
    let mut env = Map::new();
    env.insert("component".into(), Value::Object(component.clone()));
    env.insert("properties".into(), Value::Object(properties));
    env
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn lists_are_templated_and_added_properties_replace_by_name() {
        let for_each = ForEach::parse(Some(&json!({
            "components": [{"name": "$(.component.name)-replica"}],
            "properties": [
                {"name": "engine", "text": "pg-$(properties.version)"},
                {"name": "Memory", "value": "$(properties.mem)", "max": 1024, "unit": "bytes"}
            ],
            "configs": [{"name": "${component.name}", "types": ["Service"]}],
            "selectors": [{"labelSelector": "app={{ .component.labels.app }}"}],
            "checks": [{"selector": {"name": "$(component.name)"}}],
            "relationships": [{"ref": "x"}]
        })))
        .unwrap();
        let mut component = object(json!({
            "name": "db-1",
            "labels": {"app": "shop"},
            "properties": [{"name": "engine", "text": "mysql"}, {"name": "version", "text": "16"}, {"name": "mem", "value": 512}],
            "configs": [{"id": "own"}]
        }));
        for_each.apply(&mut component, "lookup.sql[0]").unwrap();
        assert_eq!(component["components"], json!([{"name": "db-1-replica"}]));
        assert_eq!(
            component["properties"],
            json!([
                {"name": "version", "text": "16"},
                {"name": "mem", "value": 512},
                {"name": "engine", "text": "pg-16"},
                {"name": "Memory", "value": 512, "max": 1024, "unit": "bytes"}
            ])
        );
        assert_eq!(
            component["configs"],
            json!([{"id": "own"}, {"name": "db-1", "types": ["Service"]}])
        );
        assert_eq!(
            component["selectors"],
            json!([{"labelSelector": "app=shop"}])
        );
        assert_eq!(component["checks"], json!([{"selector": {"name": "db-1"}}]));
        assert_eq!(component["relationships"], json!([{"ref": "x"}]));
    }

    #[test]
    fn bad_shapes_name_the_field() {
        let err = ForEach::parse(Some(&json!({"summary": []}))).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("forEach.summary: not supported"),
            "{err}"
        );
        let err = ForEach::parse(Some(&json!({"configs": {}}))).unwrap_err();
        assert_eq!(err.to_string(), "forEach.configs: must be a list");
        let for_each = ForEach::parse(Some(&json!({"configs": [{"name": "x"}]}))).unwrap();
        let mut component = object(json!({"name": "a", "configs": "oops"}));
        let err = for_each
            .apply(&mut component, "lookup.http[0].display.expr[0]")
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "lookup.http[0].display.expr[0].configs: must be a list"
        );
        let for_each = ForEach::parse(Some(&json!({"configs": [{"name": "$(nope)"}]}))).unwrap();
        let err = for_each
            .apply(&mut object(json!({"name": "a"})), "f")
            .unwrap_err();
        assert!(
            err.to_string().starts_with("forEach.configs[0].name: "),
            "{err}"
        );
        assert!(ForEach::parse(None).unwrap().lists.is_empty());
    }
}
