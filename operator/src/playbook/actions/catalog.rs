//! `catalog`: writes a config item into the catalog as one of the named
//! scraper's items (so its retention and change tracking apply), identified
//! by its type and name: writing it again updates it, with a `diff` change.

use chrono::Utc;
use quarterdeck_crds::playbook::CatalogAction;
use quarterdeck_store::catalog::{self, Item};
use quarterdeck_store::playbook_runs::claims::ClaimedRun;
use serde_json::{Value as Json, json};

use super::Failed;
use crate::playbook::runner::Engine;
use crate::scrape::record;

const HEALTH: &[&str] = &["healthy", "unhealthy", "warning", "unknown"];

pub(super) async fn run(
    engine: &Engine,
    run: &ClaimedRun,
    action: &CatalogAction,
) -> Result<Json, Failed> {
    let text = |value: &Option<String>| {
        value
            .as_deref()
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    };
    let required = |value: &Option<String>, field: &str| {
        text(value).ok_or_else(|| Failed::new(format!("catalog.{field}: This field is required")))
    };
    let name = required(&action.name, "name")?;
    let config_type = required(&action.type_, "type")?;
    let reference = action.scraper.trim();
    if reference.is_empty() {
        return Err(Failed::new("catalog.scraper: This field is required"));
    }
    let health = text(&action.health);
    if let Some(health) = health.as_deref().filter(|h| !HEALTH.contains(h)) {
        return Err(Failed::new(format!(
            "catalog.health: {health:?} is not one of {}",
            HEALTH.join(", ")
        )));
    }
    let scraper = catalog::find_scraper(&engine.pool, reference, &run.playbook_namespace)
        .await
        .map_err(|e| Failed::new(format!("catalog.scraper: {e}")))?
        .ok_or_else(|| Failed::new(format!("catalog.scraper: no scraper {reference:?}")))?;
    let item = Item {
        external_id: name.clone(),
        config_type: config_type.clone(),
        class: text(&action.config_class).unwrap_or_else(|| config_type.clone()),
        name: name.clone(),
        config: config(action.config.as_ref()),
        status: text(&action.status),
        health,
        labels: json!(action.labels.clone().unwrap_or_default()),
        tags: json!(action.tags.clone().unwrap_or_default()),
        ..Item::default()
    };
    let summary = catalog::write(
        &engine.pool,
        scraper,
        vec![item],
        Utc::now(),
        record::compare,
    )
    .await
    .map_err(|e| Failed::new(format!("catalog: writing the config item: {e}")))?;
    let id = catalog::item_id(&engine.pool, scraper, &config_type, &name)
        .await
        .map_err(|e| Failed::new(format!("catalog: reading the config item back: {e}")))?;
    let counts = summary.get(&config_type).copied().unwrap_or_default();
    Ok(json!({
        "id": id,
        "name": name,
        "type": config_type,
        "scraper": scraper,
        "created": counts.added > 0,
        "changed": counts.updated > 0,
    }))
}

/// The item's config: JSON or YAML text as the structure it writes, other
/// text as text.
fn config(value: Option<&Json>) -> Json {
    match value {
        None | Some(Json::Null) => json!({}),
        Some(Json::String(text)) => serde_json::from_str(text)
            .ok()
            .or_else(|| {
                yaml_serde::from_str::<Json>(text)
                    .ok()
                    .filter(|v| v.is_object() || v.is_array())
            })
            .unwrap_or_else(|| Json::String(text.clone())),
        Some(other) => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_text_is_read_as_json_or_yaml() {
        assert_eq!(config(Some(&json!("{\"a\": 1}"))), json!({"a": 1}));
        assert_eq!(
            config(Some(&json!("a: 1\nb: [x]"))),
            json!({"a": 1, "b": ["x"]})
        );
        assert_eq!(config(Some(&json!("all clear"))), json!("all clear"));
        assert_eq!(config(Some(&json!({"k": true}))), json!({"k": true}));
        assert_eq!(config(None), json!({}));
    }
}
