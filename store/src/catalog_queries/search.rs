//! `POST /api/resources/search`: the search grammar and the queries per kind.
//!
//! Grammar: whitespace-separated terms. `key=v1,v2` keeps rows whose `key`
//! is one of the values; `key!=v1,v2` rows whose `key` is none of them. A
//! bare word is `name=word`. Keys `id`, `name`, `namespace`, `type`,
//! `status`, `health` and `agent` are columns; any other key is a tag (config
//! items) or label (everything else). `*` in a value matches any text
//! (`name=graf*`); double quotes keep spaces (`name="my app"`).

use std::fmt;

use serde::Serialize;
use serde_json::Value;
use sqlx::types::Json;
use sqlx::{PgPool, Postgres, QueryBuilder};
use uuid::Uuid;

use super::like_escape;
use crate::Error;
use crate::grants::ScopeRule;

/// The column keys of the grammar; others are tags or labels.
pub const FIELDS: &[&str] = &[
    "id",
    "name",
    "namespace",
    "type",
    "status",
    "health",
    "agent",
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    pub key: String,
    pub negated: bool,
    pub values: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrammarError(pub String);

impl fmt::Display for GrammarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Splits on whitespace outside double quotes, dropping the quotes.
fn words(text: &str) -> Result<Vec<String>, GrammarError> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut started = false;
    for ch in text.chars() {
        match ch {
            '"' => {
                quoted = !quoted;
                started = true;
            }
            c if c.is_whitespace() && !quoted => {
                if started {
                    out.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if quoted {
        return Err(GrammarError("an opening \" has no closing \"".to_owned()));
    }
    if started {
        out.push(word);
    }
    Ok(out)
}

/// Parses a search string (grammar in the module documentation).
pub fn parse(text: &str) -> Result<Vec<Term>, GrammarError> {
    words(text)?
        .into_iter()
        .map(|word| {
            let Some((key, values)) = word.split_once('=') else {
                return Ok(Term {
                    key: "name".to_owned(),
                    negated: false,
                    values: vec![word],
                });
            };
            let (key, negated) = match key.strip_suffix('!') {
                Some(key) => (key, true),
                None => (key, false),
            };
            if key.is_empty() {
                return Err(GrammarError(format!("{word:?} has no key before '='")));
            }
            let values: Vec<String> = values
                .split(',')
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
                .collect();
            if values.is_empty() {
                return Err(GrammarError(format!("{key} has no value")));
            }
            Ok(Term {
                key: key.to_owned(),
                negated,
                values,
            })
        })
        .collect()
}

/// The kinds `POST /api/resources/search` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Checks,
    Components,
    Configs,
    Connections,
    Playbooks,
}

/// How a kind's table answers the grammar's keys (`None`: it has no such column).
struct Columns {
    from: &'static str,
    namespace: &'static str,
    kind_type: &'static str,
    status: Option<&'static str>,
    health: Option<&'static str>,
    agent: Option<&'static str>,
    tags: Option<&'static str>,
}

impl Kind {
    fn columns(self) -> Columns {
        match self {
            Kind::Checks => Columns {
                from: "checks t",
                namespace: "t.namespace",
                kind_type: "t.type",
                status: Some("t.status"),
                health: Some("t.status"),
                agent: Some("t.agent_id"),
                tags: Some("t.labels"),
            },
            Kind::Components => Columns {
                from: "components t",
                namespace: "t.namespace",
                kind_type: "t.type",
                status: Some("t.status"),
                health: Some("t.health"),
                agent: Some("t.agent_id"),
                tags: Some("t.labels"),
            },
            Kind::Configs => Columns {
                from: "config_items t",
                namespace: "t.tags ->> 'namespace'",
                kind_type: "t.type",
                status: Some("t.status"),
                health: Some("t.health"),
                agent: Some("t.agent_id"),
                tags: Some("t.tags"),
            },
            Kind::Connections => Columns {
                from: "connections t",
                namespace: "t.namespace",
                kind_type: "t.type",
                status: None,
                health: None,
                agent: None,
                tags: None,
            },
            Kind::Playbooks => Columns {
                from: "playbooks t",
                namespace: "t.namespace",
                kind_type: "t.category",
                status: None,
                health: None,
                agent: None,
                tags: Some("t.labels"),
            },
        }
    }
}

/// One selector of a search: fields given directly and a search string.
#[derive(Debug, Clone, Default)]
pub struct Selector {
    pub terms: Vec<Term>,
    /// An agent's id or name, or `all` (the default).
    pub agent: Option<String>,
}

/// A row found, as every kind shows it.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Found {
    pub id: Uuid,
    pub name: Option<String>,
    pub namespace: Option<String>,
    #[serde(rename = "type")]
    #[sqlx(rename = "type")]
    pub kind_type: Option<String>,
    pub status: Option<String>,
    pub health: Option<String>,
    pub agent_id: Option<Uuid>,
    #[schema(value_type = Option<Object>)]
    pub tags: Option<Json<Value>>,
}

/// Scope rules per kind: checks follow their canary's.
#[derive(Debug, Clone, Copy, Default)]
pub struct Rules<'a> {
    pub config: Option<&'a [ScopeRule]>,
    pub component: Option<&'a [ScopeRule]>,
    pub playbook: Option<&'a [ScopeRule]>,
    pub canary: Option<&'a [ScopeRule]>,
}

fn like_pattern(value: &str) -> String {
    value
        .split('*')
        .map(like_escape)
        .collect::<Vec<_>>()
        .join("%")
}

fn push_values(b: &mut QueryBuilder<Postgres>, column: &str, term: &Term) {
    b.push(if term.negated {
        " AND NOT coalesce("
    } else {
        " AND coalesce("
    });
    let mut first = true;
    for value in &term.values {
        b.push(if first { "(" } else { " OR (" });
        first = false;
        b.push(format_args!("({column})::text ILIKE "))
            .push_bind(like_pattern(value))
            .push(")");
    }
    b.push(", false)");
}

/// The live rows of `kind` every selector term matches, that the caller sees;
/// at most `limit`, by name.
pub async fn find(
    pool: &PgPool,
    kind: Kind,
    selector: &Selector,
    rules: Rules<'_>,
    limit: i64,
) -> Result<Vec<Found>, Error> {
    let c = kind.columns();
    let opt = |column: Option<&str>| column.unwrap_or("NULL::text").to_owned();
    let mut b = QueryBuilder::new(format!(
        "SELECT t.id, t.name, {}::text AS namespace, {}::text AS type, {}::text AS status, \
         {}::text AS health, {} AS agent_id, {} AS tags FROM {} WHERE t.deleted_at IS NULL",
        c.namespace,
        c.kind_type,
        opt(c.status),
        opt(c.health),
        c.agent.unwrap_or("NULL::uuid"),
        c.tags.unwrap_or("NULL::jsonb"),
        c.from,
    ));
    for term in &selector.terms {
        let column = match term.key.as_str() {
            "id" => Some("t.id".to_owned()),
            "name" => Some("t.name".to_owned()),
            "namespace" => Some(c.namespace.to_owned()),
            "type" => Some(c.kind_type.to_owned()),
            "status" => c.status.map(str::to_owned),
            "health" => c.health.map(str::to_owned),
            "agent" => c
                .agent
                .map(|a| format!("(SELECT ag.name FROM agents ag WHERE ag.id = {a})")),
            key => c
                .tags
                .map(|tags| format!("{tags} ->> {}", quote_literal(key))),
        };
        match column {
            Some(column) => push_values(&mut b, &column, term),
            // A key the kind does not have matches nothing, unless negated.
            None if term.negated => {}
            None => {
                b.push(" AND FALSE");
            }
        }
    }
    if let (Some(agent), Some(column)) = (selector.agent.as_deref(), c.agent)
        && agent != "all"
    {
        b.push(format_args!(" AND ({column}::text = "))
            .push_bind(agent.to_owned())
            .push(format_args!(
                " OR EXISTS (SELECT 1 FROM agents ag WHERE ag.id = {column} AND ag.name = "
            ))
            .push_bind(agent.to_owned())
            .push("))");
    }
    let scope = match kind {
        Kind::Configs => rules.config.map(|r| (r, "t.tags", "t.agent_id")),
        Kind::Components => rules.component.map(|r| (r, "t.labels", "t.agent_id")),
        Kind::Playbooks => rules.playbook.map(|r| {
            (
                r,
                "t.labels",
                "'00000000-0000-0000-0000-000000000000'::uuid",
            )
        }),
        Kind::Checks | Kind::Connections => None,
    };
    if let Some((rules, tags, agent)) = scope {
        b.push(" AND quarterdeck_scope_allows(")
            .push_bind(Json(rules.to_vec()))
            .push(format_args!(", {tags}, {agent}, t.name)"));
    }
    if let (Kind::Checks, Some(rules)) = (kind, rules.canary) {
        b.push(
            " AND EXISTS (SELECT 1 FROM canaries k WHERE k.id = t.canary_id \
             AND quarterdeck_scope_allows(",
        )
        .push_bind(Json(rules.to_vec()))
        .push(", k.labels, k.agent_id, k.name))");
    }
    b.push(" ORDER BY t.name, t.id LIMIT ").push_bind(limit);
    Ok(b.build_query_as::<Found>().fetch_all(pool).await?)
}

/// A tag or label key as a SQL string literal (quotes doubled; backslashes
/// are plain characters with PostgreSQL's standard-conforming strings).
fn quote_literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(key: &str, negated: bool, values: &[&str]) -> Term {
        Term {
            key: key.to_owned(),
            negated,
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    #[test]
    fn the_example_of_the_spec() {
        assert_eq!(
            parse("name=grafana type=Kubernetes::Deployment health=healthy,unhealthy"),
            Ok(vec![
                term("name", false, &["grafana"]),
                term("type", false, &["Kubernetes::Deployment"]),
                term("health", false, &["healthy", "unhealthy"]),
            ])
        );
    }

    #[test]
    fn bare_words_negation_quotes_and_tags() {
        assert_eq!(
            parse(r#"  grafana  status!=Failed name="my app" env=prod,,stage "#),
            Ok(vec![
                term("name", false, &["grafana"]),
                term("status", true, &["Failed"]),
                term("name", false, &["my app"]),
                term("env", false, &["prod", "stage"]),
            ])
        );
        assert_eq!(parse(""), Ok(vec![]));
    }

    #[test]
    fn malformed_terms_are_refused() {
        assert!(parse("=x").is_err());
        assert!(parse("name=").is_err());
        assert!(parse("name=,").is_err());
        assert!(parse("name=\"open").is_err());
    }

    #[test]
    fn wildcards_become_like_patterns_with_the_rest_literal() {
        assert_eq!(like_pattern("graf*"), "graf%");
        assert_eq!(like_pattern("a_b%c*"), "a\\_b\\%c%");
        assert_eq!(like_pattern("*"), "%");
    }
}
