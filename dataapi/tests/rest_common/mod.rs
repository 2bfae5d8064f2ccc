//! Helpers shared by the data API tests (`rest_*.rs`).
#![allow(dead_code)]

use quarterdeck_dataapi::{self as rest, Caller, Method, Request, Response, RestError};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

/// An unrestricted caller acting as `person`.
pub fn admin(person: Option<Uuid>) -> Caller {
    Caller {
        person_id: person,
        visibility: rest::Visibility::default(),
        admin: true,
        writes: rest::Schema::console()
            .relations()
            .map(|r| r.write_resource)
            .collect(),
        authorizer: quarterdeck_store::rbac::Authorizer {
            roles: vec!["admin".into()],
            ..Default::default()
        },
    }
}

pub async fn call(
    pool: &PgPool,
    caller: &Caller,
    method: Method,
    relation: &str,
    query: &str,
    prefer: &str,
    body: Option<Value>,
) -> Result<Response, RestError> {
    rest::execute(
        pool,
        Request {
            method,
            relation,
            query,
            prefer,
            range: None,
            body,
        },
        caller,
    )
    .await
}

/// A GET as an unrestricted caller.
pub async fn get(pool: &PgPool, relation: &str, query: &str) -> Result<Response, RestError> {
    call(pool, &admin(None), Method::Get, relation, query, "", None).await
}

/// The rows of a GET that must succeed.
pub async fn rows(pool: &PgPool, relation: &str, query: &str) -> Vec<Value> {
    rows_as(pool, &admin(None), relation, query).await
}

pub async fn rows_as(pool: &PgPool, caller: &Caller, relation: &str, query: &str) -> Vec<Value> {
    let response = call(pool, caller, Method::Get, relation, query, "", None)
        .await
        .unwrap_or_else(|e| panic!("GET {relation}?{query}: {e:?}"));
    assert_eq!(response.status, 200);
    match response.json() {
        Some(Value::Array(rows)) => rows,
        other => panic!("GET {relation}?{query}: not an array: {other:?}"),
    }
}

/// The `key` of every row, as strings.
pub fn column(rows: &[Value], key: &str) -> Vec<String> {
    rows.iter()
        .map(|r| match &r[key] {
            Value::String(s) => s.clone(),
            Value::Null => "null".into(),
            other => other.to_string(),
        })
        .collect()
}

pub async fn person(pool: &PgPool, name: &str, roles: &[&str]) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO people (name, email, roles, password_hash) VALUES ($1, $2, $3, 'secret-hash') RETURNING id",
    )
    .bind(name)
    .bind(format!("{}@example.com", name.to_lowercase()))
    .bind(roles.iter().map(|r| r.to_string()).collect::<Vec<_>>())
    .fetch_one(pool)
    .await
    .expect("person")
}

pub async fn team(pool: &PgPool, name: &str, members: &[Uuid]) -> Uuid {
    let id: Uuid = sqlx::query_scalar("INSERT INTO teams (name) VALUES ($1) RETURNING id")
        .bind(name)
        .fetch_one(pool)
        .await
        .expect("team");
    for member in members {
        sqlx::query("INSERT INTO team_members (team_id, person_id) VALUES ($1, $2)")
            .bind(id)
            .bind(member)
            .execute(pool)
            .await
            .expect("member");
    }
    id
}

pub async fn agent(pool: &PgPool, name: &str) -> Uuid {
    sqlx::query_scalar("INSERT INTO agents (name) VALUES ($1) RETURNING id")
        .bind(name)
        .fetch_one(pool)
        .await
        .expect("agent")
}

pub async fn config_item(pool: &PgPool, name: &str, kind: &str, tags: Value, agent: Uuid) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO config_items (name, type, config_class, tags, agent_id) \
         VALUES ($1, $2, 'Deployment', $3, $4) RETURNING id",
    )
    .bind(name)
    .bind(kind)
    .bind(tags)
    .bind(agent)
    .fetch_one(pool)
    .await
    .expect("config item")
}

/// Every row of `table` as JSON, in a stable order, to prove nothing changed.
pub async fn snapshot(pool: &PgPool, table: &str) -> Value {
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT coalesce(jsonb_agg(to_jsonb(t) ORDER BY to_jsonb(t)::text), '[]'::jsonb) FROM {table} t"
    )))
    .fetch_one(pool)
    .await
    .expect("snapshot")
}

/// An access scope row inserted directly (bypassing the API).
pub async fn access_scope(
    pool: &PgPool,
    name: &str,
    person: Option<Uuid>,
    team: Option<Uuid>,
    resources: &[&str],
    scopes: Value,
    source: &str,
) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO access_scopes (name, person_id, team_id, resources, scopes, source) \
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
    )
    .bind(name)
    .bind(person)
    .bind(team)
    .bind(resources.iter().map(|r| r.to_string()).collect::<Vec<_>>())
    .bind(scopes)
    .bind(source)
    .fetch_one(pool)
    .await
    .expect("access scope")
}

pub fn json_ids(ids: &[Uuid]) -> Vec<String> {
    ids.iter()
        .map(|i| json!(i).as_str().unwrap_or_default().to_owned())
        .collect()
}
