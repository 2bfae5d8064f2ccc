//! A component's `lookup`: the components a query emits (catalog, SQL, HTTP,
//! exec), expanded by `forEach` (Mission Control's Topology semantics).
//!
//! A component with a `lookup` is replaced by the components its lookup
//! emits. `lookup` holds check specs by kind (`catalog` or its alias
//! `configDB`, `http`, `postgres`, `mysql`, `sql` with a `driver`, `exec`);
//! each entry's `display.expr` (CEL) turns the result into component objects
//! (see [`display`]). The emitted components take the spec's `type`, `icon`,
//! `owner`, `tooltip`, `lifecycle`, `hidden` and `description` where they
//! give none, and its `labels` under their own; then `forEach` adds its
//! `components`, `properties`, `configs`, `checks`, `selectors` and
//! `relationships` to each, templated with the emitted component's fields
//! (see [`for_each`] and [`template`]).
//!
//! A property's `lookup` runs the same kinds; its display sets the property
//! ([`property`]).

mod display;
mod for_each;
mod template;

pub use display::PropertyValue;

use std::collections::HashSet;
use std::time::Instant;

use quarterdeck_store::execution_policy::{self, ExecutionPolicy};
use quarterdeck_store::topology_lookup::{self, ConfigSelector};
use serde_json::{Map, Value};
use sqlx::PgPool;
use uuid::Uuid;

/// What a topology's lookups run with.
pub struct LookupContext<'a> {
    pub pool: &'a PgPool,
    /// What the checks behind `http`, SQL and `exec` lookups run with:
    /// credentials, the cluster, the default timeout, the topology's
    /// namespace and the script user. `pin_connections` is decided here, per
    /// lookup, by the execution policy.
    pub checks: &'a quarterdeck_checks::Context,
    /// The stored execution policy (`execution_policy::load`).
    pub policy: ExecutionPolicy,
    /// The topology's `source`: rows from Kubernetes follow the cluster's
    /// RBAC, console ones the execution policy (as canaries do).
    pub source: &'a str,
    pub topology_id: Uuid,
}

/// Why a lookup produced no components; `field` is where in the component
/// spec (`lookup.http[0].display.expr`).
#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    /// The spec is wrong; fixing the spec fixes it.
    #[error("{field}: {message}")]
    Spec { field: String, message: String },
    /// The query ran and failed (or was refused by the execution policy).
    #[error("{field}: {message}")]
    Failed { field: String, message: String },
    #[error("{field}: {source}")]
    Database {
        field: String,
        #[source]
        source: quarterdeck_store::Error,
    },
}

impl LookupError {
    pub(crate) fn spec(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Spec {
            field: field.into(),
            message: message.into(),
        }
    }

    /// Where in the component spec the problem is.
    pub fn field(&self) -> &str {
        match self {
            Self::Spec { field, .. }
            | Self::Failed { field, .. }
            | Self::Database { field, .. } => field,
        }
    }

    /// What is wrong there.
    pub fn message(&self) -> String {
        match self {
            Self::Spec { message, .. } | Self::Failed { message, .. } => message.clone(),
            Self::Database { source, .. } => source.to_string(),
        }
    }
}

/// One object a lookup emitted.
#[derive(Debug, Clone, PartialEq)]
pub struct Emitted {
    /// Where it came from (`lookup.http[0].display.expr[2]`).
    pub field: String,
    /// Its fields; `name` is a non-empty string.
    pub object: Map<String, Value>,
}

/// How a lookup kind runs.
#[derive(Clone, Copy)]
enum Kind {
    /// Catalog items selected in the database.
    Catalog,
    /// A `postgres` or `mysql` check by `driver`.
    Sql,
    /// A check of this type.
    Check(&'static str),
}

const KINDS: &[(&str, Kind)] = &[
    ("catalog", Kind::Catalog),
    ("configDB", Kind::Catalog),
    ("http", Kind::Check("http")),
    ("postgres", Kind::Check("postgres")),
    ("mysql", Kind::Check("mysql")),
    ("sql", Kind::Sql),
    ("exec", Kind::Check("exec")),
];

/// The components `component` stands for: itself when it has no `lookup`,
/// else those its lookup emits, defaulted from it and expanded by its
/// `forEach`. None of them carries a `lookup` or `forEach` of its own (their
/// `components` may).
pub async fn expand(component: &Value, ctx: &LookupContext<'_>) -> Result<Vec<Value>, LookupError> {
    let Some(spec) = component.as_object() else {
        return Err(LookupError::spec("", "a component must be an object"));
    };
    let Some(lookup) = spec.get("lookup").filter(|l| !l.is_null()) else {
        return Ok(vec![component.clone()]);
    };
    let started = Instant::now();
    let for_each = for_each::ForEach::parse(spec.get("forEach"))?;
    let emitted = emit(lookup, "lookup", ctx).await?;
    let expanded = emitted
        .into_iter()
        .map(|Emitted { field, mut object }| {
            object.remove("lookup");
            object.remove("forEach");
            inherit(&mut object, spec);
            for_each.apply(&mut object, &field)?;
            Ok(Value::Object(object))
        })
        .collect::<Result<Vec<_>, LookupError>>()?;
    let name = spec.get("name").and_then(Value::as_str).unwrap_or("");
    tracing::debug!(
        topology_id = %ctx.topology_id,
        name,
        components = expanded.len(),
        elapsed_ms = started.elapsed().as_millis(),
        "lookup expanded"
    );
    Ok(expanded)
}

/// The objects a `lookup` (an object of lists of specs by kind, at `field`)
/// emits, in the order written: every entry's `display` applied to its
/// result.
pub async fn emit(
    lookup: &Value,
    field: &str,
    ctx: &LookupContext<'_>,
) -> Result<Vec<Emitted>, LookupError> {
    run(lookup, field, ctx, display::emit).await
}

/// What a property's `lookup` (at `field`) sets, entry by entry: fields of
/// the property, or properties in its place (see [`PropertyValue`]).
pub async fn property(
    lookup: &Value,
    field: &str,
    ctx: &LookupContext<'_>,
) -> Result<Vec<PropertyValue>, LookupError> {
    run(lookup, field, ctx, |kind, entry, result, field| {
        Ok(vec![display::property(kind, entry, result, field)?])
    })
    .await
}

/// Runs every entry of `lookup` in the order written and `apply`s its
/// display to its result (`apply(kind, entry, result, field)`).
async fn run<T>(
    lookup: &Value,
    field: &str,
    ctx: &LookupContext<'_>,
    mut apply: impl FnMut(
        &str,
        &Map<String, Value>,
        Map<String, Value>,
        &str,
    ) -> Result<Vec<T>, LookupError>,
) -> Result<Vec<T>, LookupError> {
    let Some(kinds) = lookup.as_object() else {
        return Err(LookupError::spec(
            field,
            "must be an object of lists by kind",
        ));
    };
    let mut out = Vec::new();
    for (name, entries) in kinds {
        let kind_field = format!("{field}.{name}");
        let Some(&(_, kind)) = KINDS.iter().find(|(k, _)| k == name) else {
            let known: Vec<&str> = KINDS.iter().map(|(k, _)| *k).collect();
            return Err(LookupError::spec(
                kind_field,
                format!("unknown lookup kind (use {})", known.join(", ")),
            ));
        };
        let entries = match entries {
            Value::Array(entries) => entries.as_slice(),
            Value::Null => &[],
            _ => return Err(LookupError::spec(kind_field, "must be a list")),
        };
        for (i, entry) in entries.iter().enumerate() {
            let field = format!("{kind_field}[{i}]");
            let Some(entry) = entry.as_object() else {
                return Err(LookupError::spec(field, "must be an object"));
            };
            let result = match kind {
                Kind::Catalog => catalog(entry, &field, ctx).await?,
                Kind::Sql => {
                    let (check_type, spec) = sql(entry, &field)?;
                    check(check_type, spec, &field, ctx).await?
                }
                Kind::Check(check_type) => check(check_type, entry.clone(), &field, ctx).await?,
            };
            out.extend(apply(name, entry, result, &field)?);
        }
    }
    Ok(out)
}

/// `catalog`: the items of its `selector` list (beside which only `name`,
/// `description` and `display` go), or of the entry itself read as one
/// selector. The result: `configs` (each item's id, name, type, class,
/// namespace, tags, labels, health, status, config...) and `count`.
async fn catalog(
    entry: &Map<String, Value>,
    field: &str,
    ctx: &LookupContext<'_>,
) -> Result<Map<String, Value>, LookupError> {
    let parse = |value: &Value, at: String| {
        ConfigSelector::parse(value).map_err(|e| match e.split_once(": ") {
            Some((suffix, message)) => LookupError::spec(format!("{at}{suffix}"), message),
            None => LookupError::spec(at, e),
        })
    };
    if entry.contains_key("selector")
        && let Some(other) = entry
            .keys()
            .find(|k| !matches!(k.as_str(), "selector" | "name" | "description" | "display"))
    {
        return Err(LookupError::spec(
            format!("{field}.{other}"),
            "goes in each selector of the selector list",
        ));
    }
    let selectors = match entry.get("selector") {
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .map(|(i, s)| parse(s, format!("{field}.selector[{i}]")))
            .collect::<Result<Vec<_>, _>>()?,
        Some(one @ Value::Object(_)) => vec![parse(one, format!("{field}.selector"))?],
        Some(_) => {
            return Err(LookupError::spec(
                format!("{field}.selector"),
                "must be a list of selectors",
            ));
        }
        None => {
            let own: Map<String, Value> = entry
                .iter()
                .filter(|(k, _)| !matches!(k.as_str(), "display" | "description"))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            vec![parse(&Value::Object(own), field.to_owned())?]
        }
    };
    let mut configs = Vec::new();
    let mut seen = HashSet::new();
    for selector in &selectors {
        let found = topology_lookup::select_configs(ctx.pool, selector)
            .await
            .map_err(|source| LookupError::Database {
                field: field.to_owned(),
                source,
            })?;
        for item in found {
            let id = item.get("id").and_then(Value::as_str).map(str::to_owned);
            if id.is_none_or(|id| seen.insert(id)) {
                configs.push(item);
            }
        }
    }
    let mut result = Map::new();
    result.insert("count".into(), Value::from(configs.len()));
    result.insert("configs".into(), Value::Array(configs));
    Ok(result)
}

/// `sql`: a `postgres` or `mysql` check by its `driver` (or its URL's scheme).
fn sql(
    entry: &Map<String, Value>,
    field: &str,
) -> Result<(&'static str, Map<String, Value>), LookupError> {
    let mut spec = entry.clone();
    let driver = match spec.remove("driver") {
        Some(Value::String(driver)) => driver,
        Some(_) => {
            return Err(LookupError::spec(
                format!("{field}.driver"),
                "must be a string",
            ));
        }
        None => spec
            .get("url")
            .and_then(Value::as_str)
            .and_then(|url| url.split_once("://"))
            .map(|(scheme, _)| scheme.to_owned())
            .unwrap_or_default(),
    };
    let check_type = match driver.as_str() {
        "postgres" | "postgresql" | "pgx" => "postgres",
        "mysql" => "mysql",
        "" => {
            return Err(LookupError::spec(
                format!("{field}.driver"),
                "is required unless url starts with postgres:// or mysql:// (postgres or mysql)",
            ));
        }
        other => {
            return Err(LookupError::spec(
                format!("{field}.driver"),
                format!("{other:?} is not supported (postgres or mysql)"),
            ));
        }
    };
    Ok((check_type, spec))
}

/// Runs `spec` as a check of `check_type` under the execution policy; its
/// result variables (e.g. `code`, `json`, `content` for http, `rows` for SQL,
/// `stdout` for exec) are the lookup's result. A failed check is an error.
async fn check(
    check_type: &str,
    mut spec: Map<String, Value>,
    field: &str,
    ctx: &LookupContext<'_>,
) -> Result<Map<String, Value>, LookupError> {
    let rules = execution_policy::run_rules(ctx.policy, ctx.source, check_type, false).map_err(
        |refused| LookupError::Failed {
            field: field.to_owned(),
            message: refused.to_owned(),
        },
    )?;
    // The lookup applies `display` itself; a transform would make other checks.
    spec.remove("display");
    spec.remove("transform");
    if spec
        .get("name")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        spec.insert("name".into(), Value::String(field.to_owned()));
    }
    let checks = quarterdeck_checks::Context {
        pin_connections: rules.pin_connections,
        ..ctx.checks.clone()
    };
    let outcome = quarterdeck_checks::run(check_type, &Value::Object(spec), &checks).await;
    if !outcome.passed {
        let message = outcome
            .error
            .unwrap_or_else(|| "the check failed".to_owned());
        // A check that never ran did not parse: the spec is wrong.
        return Err(if outcome.attempts == 0 {
            LookupError::spec(field, message)
        } else {
            LookupError::Failed {
                field: field.to_owned(),
                message,
            }
        });
    }
    Ok(match outcome.details {
        Value::Object(details) => details,
        _ => Map::new(),
    })
}

/// A numeric text as a number (`"3"` stays an integer).
pub(crate) fn number(text: &str) -> Option<Value> {
    text.trim()
        .parse::<serde_json::Number>()
        .ok()
        .map(Value::Number)
}

/// Fields an emitted component takes from the spec when it gives none.
const INHERITED: &[&str] = &[
    "type",
    "icon",
    "owner",
    "tooltip",
    "lifecycle",
    "hidden",
    "description",
];

fn inherit(fields: &mut Map<String, Value>, spec: &Map<String, Value>) {
    for key in INHERITED {
        if let Some(value) = spec.get(*key).filter(|v| !v.is_null())
            && fields.get(*key).is_none_or(Value::is_null)
        {
            fields.insert((*key).to_owned(), value.clone());
        }
    }
    if let Some(Value::Object(labels)) = spec.get("labels") {
        let own = fields
            .entry("labels")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(own) = own {
            for (k, v) in labels {
                own.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }
}
