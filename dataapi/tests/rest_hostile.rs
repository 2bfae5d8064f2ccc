//! Hostile input: every case must give a clean 4xx `RestError` and change
//! nothing; injection attempts in values must be treated as plain data.

mod rest_common;

use quarterdeck_dataapi::{self as rest, Method, Request};
use rest_common::*;
use serde_json::{Value, json};
use sqlx::PgPool;

struct Case {
    method: Method,
    relation: String,
    query: String,
    range: Option<&'static str>,
    body: Option<Value>,
}

fn get(relation: &str, query: impl Into<String>) -> Case {
    Case {
        method: Method::Get,
        relation: relation.into(),
        query: query.into(),
        range: None,
        body: None,
    }
}

fn ranged(range: &'static str) -> Case {
    Case {
        range: Some(range),
        ..get("teams", "select=name")
    }
}

fn write(method: Method, relation: &str, query: &str, body: Option<Value>) -> Case {
    Case {
        method,
        relation: relation.into(),
        query: query.into(),
        range: None,
        body,
    }
}

fn nested_logic(depth: usize) -> String {
    let mut tree = "name.eq.a".to_owned();
    for i in 0..depth {
        let op = if i % 2 == 0 { "and" } else { "or" };
        tree = format!("{op}({tree},name.eq.b)");
    }
    format!("or=({tree})")
}

fn nested_embeds(depth: usize) -> String {
    let mut select = "name".to_owned();
    for i in 0..depth {
        let embed = if i % 2 == 0 { "created_by" } else { "team" };
        select = format!("{embed}({select})");
    }
    format!("select=name,{select}")
}

fn cases() -> Vec<Case> {
    let huge_in = (0..6000)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let many_filters = (0..201)
        .map(|i| format!("name=neq.{i}"))
        .collect::<Vec<_>>()
        .join("&");
    let many_items = (0..400).map(|_| "name").collect::<Vec<_>>().join(",");
    let too_many_rows = Value::Array(vec![json!({"name": "x"}); 1001]);
    vec![
        // Relation names.
        get("teams; DROP TABLE teams", ""),
        get("teams\"", ""),
        get("pg_catalog.pg_authid", ""),
        get("../teams", ""),
        get("", ""),
        get("TEAMS", ""),
        get("access_tokens", "select=*"),
        get("sessions", ""),
        get("invites", ""),
        get("information_schema.tables", ""),
        // Column names.
        get("teams", "name;DROP TABLE teams=eq.x"),
        get("teams", "\"name\"=eq.x"),
        get("teams", "name--=eq.x"),
        get("teams", "1=eq.1"),
        get("teams", "name)or(1=eq.1"),
        get("people", "password_hash=eq.x"),
        get("people", "password_hash=not.is.null"),
        get("connections", "password=like.*"),
        get("teams", "name%3Deq.x"),
        get("teams", "team.name=eq.x"),
        get("teams", "name->>x=eq.1"),
        // Values that cannot be cast.
        get("teams", "id=eq.1' OR '1'='1"),
        get("teams", "id=eq.00000000-0000-0000-0000-000000000000'--"),
        get("teams", "id=in.(1,2);DROP TABLE teams"),
        get("teams", "created_at=gt.now()); DROP TABLE teams;--"),
        get("job_history", "duration_millis=eq.1 OR 1=1"),
        // Operators.
        get("teams", "name=eqq.x"),
        get("teams", "name=eq"),
        get("teams", "name="),
        get("teams", "name=not."),
        get("teams", "name=like"),
        get("teams", "name=is.maybe"),
        get("teams", "name=in.a,b"),
        get("teams", "name=in.(a,\"b)"),
        get("teams", "name=sql.select 1"),
        get("teams", "name=is.true"),
        get("teams", "spec=gt.1"),
        get("teams", "spec=like.x"),
        get("teams", "name=ov.{a}"),
        get("teams", format!("name=in.({huge_in})")),
        get("teams", many_filters),
        // Logic trees.
        get("teams", "or=(name.eq.a"),
        get("teams", "or=name.eq.a"),
        get("teams", "or=((name.eq.a)"),
        get("teams", "or=()"),
        get("teams", "or=(name.eq.a))"),
        get("teams", "or=(name.eq.\"a)"),
        get("teams", "and=(name.eq.a,evil.eq.b)"),
        get("teams", "not.xor=(name.eq.a)"),
        get("teams", nested_logic(20)),
        get("teams", "or=(name.eq.a(b))"),
        // Select.
        get("teams", "select=name;DROP TABLE teams"),
        get("teams", "select=*,(select 1)"),
        get("teams", "select=name::text"),
        get("teams", "select=name,created_by("),
        get("teams", "select=name)"),
        get("teams", "select=...created_by(name)"),
        get("teams", "select=pg_sleep(10)"),
        get("teams", "select=a:b:c"),
        get("teams", "select=evil\"alias:name"),
        get("teams", nested_embeds(8)),
        get("teams", "select="),
        get("teams", format!("select={many_items}")),
        get("teams", "select=created_by!nope(name)"),
        get("teams", "select=created_by!inner!left!x(name)"),
        get("teams", "select=created_by(password_hash)"),
        get("access_scopes", "select=people(name)"),
        // Order.
        get("teams", "order=name;DROP TABLE teams"),
        get("teams", "order=name.sideways"),
        get("teams", "order=random()"),
        get("teams", "order=name desc"),
        get("teams", "order=created_by(name).desc"),
        // Pages.
        get("teams", "limit=-1"),
        get("teams", "limit=1e9"),
        get("teams", "limit=99999999999999999999999"),
        get("teams", "offset=abc"),
        get("teams", "limit=1&limit=2"),
        ranged("abc"),
        ranged("10-5"),
        ranged("-5"),
        // Encoding.
        get("teams", "name=eq.%ZZ"),
        get("teams", "name=eq.%FF%FE"),
        get("teams", "name=eq.%00"),
        get("teams", "name=eq.%"),
        get("teams", format!("name=eq.{}", "x".repeat(70 * 1024))),
        // Wrong-shaped bodies and write misuse.
        write(Method::Post, "teams", "", Some(Value::Null)),
        write(Method::Post, "teams", "", Some(json!(42))),
        write(Method::Post, "teams", "", Some(json!([[{"name": "x"}]]))),
        write(
            Method::Post,
            "teams",
            "",
            Some(json!({"name": "x", "name); DROP TABLE teams;--": 1})),
        ),
        write(
            Method::Post,
            "teams",
            "",
            Some(json!({"id": "not-a-uuid", "name": "x"})),
        ),
        write(Method::Post, "teams", "", Some(too_many_rows)),
        write(
            Method::Post,
            "teams",
            "",
            Some(json!({"name": "x", "source": "KubernetesCRD"})),
        ),
        write(Method::Post, "teams", "", None),
        write(
            Method::Post,
            "people",
            "",
            Some(json!({"name": "x", "roles": ["admin"]})),
        ),
        write(
            Method::Post,
            "access_scopes",
            "",
            Some(json!({"name": "x", "resources": "config"})),
        ),
        write(
            Method::Post,
            "access_scopes",
            "",
            Some(json!({"name": "x", "scopes": "DROP"})),
        ),
        write(
            Method::Patch,
            "teams",
            "name=eq.a",
            Some(json!([{"icon": "x"}])),
        ),
        write(Method::Patch, "teams", "name=eq.a", Some(json!({}))),
        write(
            Method::Patch,
            "teams",
            "name=eq.a",
            Some(json!({"id": "00000000-0000-0000-0000-000000000000"})),
        ),
        write(Method::Patch, "teams", "", Some(json!({"icon": "x"}))),
        write(
            Method::Patch,
            "teams",
            "select=*",
            Some(json!({"icon": "x"})),
        ),
        write(
            Method::Patch,
            "teams",
            "or=(name.eq.a,id.eq.notuuid)",
            Some(json!({"icon": "x"})),
        ),
        write(
            Method::Patch,
            "config_items",
            "name=eq.a",
            Some(json!({"name": "x"})),
        ),
        write(Method::Delete, "teams", "", None),
        write(Method::Delete, "teams", "limit=1", None),
        write(Method::Delete, "teams", "name=eq.a&order=name", None),
        write(Method::Delete, "checks", "name=eq.a", None),
        write(Method::Delete, "teams", "name=eq.a;DROP TABLE teams", None).with_hostile_column(),
    ]
}

impl Case {
    /// Turns the filter value into a column name.
    fn with_hostile_column(mut self) -> Self {
        self.query = "name;DROP=eq.a".into();
        self
    }
}

const TABLES: [&str; 8] = [
    "teams",
    "team_members",
    "people",
    "access_scopes",
    "config_items",
    "connections",
    "access_tokens",
    "properties",
];

async fn seed(pool: &PgPool) {
    let alice = person(pool, "Alice", &["admin"]).await;
    let bob = person(pool, "Bob", &["guest"]).await;
    team(pool, "a", &[alice, bob]).await;
    access_scope(
        pool,
        "bob",
        Some(bob),
        None,
        &["config"],
        json!([{"names": ["x"]}]),
        "UI",
    )
    .await;
    config_item(
        pool,
        "x",
        "T",
        json!({"env": "prod"}),
        quarterdeck_store::LOCAL_AGENT_ID,
    )
    .await;
    sqlx::query(
        "INSERT INTO connections (name, type, password) VALUES ('db', 'postgres', 'hunter2')",
    )
    .execute(pool)
    .await
    .expect("connection");
    sqlx::query("INSERT INTO access_tokens (name, value, person_id) VALUES ('t', 'digest', $1)")
        .bind(alice)
        .execute(pool)
        .await
        .expect("token");
}

async fn snapshots(pool: &PgPool) -> Vec<Value> {
    let mut all = Vec::new();
    for table in TABLES {
        all.push(snapshot(pool, table).await);
    }
    all
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn hostile_requests_are_refused_cleanly(pool: PgPool) {
    seed(&pool).await;
    let before = snapshots(&pool).await;
    let me = sqlx::query_scalar("SELECT id FROM people WHERE name = 'Alice'")
        .fetch_one(&pool)
        .await
        .expect("alice");
    let caller = admin(Some(me));
    let cases = cases();
    assert!(cases.len() >= 50, "{} cases", cases.len());
    for case in &cases {
        let result = rest::execute(
            &pool,
            Request {
                method: case.method,
                relation: &case.relation,
                query: &case.query,
                prefer: "return=representation",
                range: case.range,
                body: case.body.clone(),
            },
            &caller,
        )
        .await;
        let shown = format!(
            "{:?} {} ?{}",
            case.method,
            case.relation,
            case.query.chars().take(120).collect::<String>()
        );
        let error = result.expect_err(&shown);
        assert!(
            (400..500).contains(&error.status) || error.status == 300,
            "{shown}: {error:?}"
        );
        assert!(
            !error.code.is_empty() && !error.message.is_empty(),
            "{shown}"
        );
        assert!(error.message.len() < 400, "{shown}: message too long");
        let body = serde_json::to_value(&error).expect("json");
        assert_eq!(
            body.as_object().map(|o| {
                let mut keys: Vec<&str> = o.keys().map(String::as_str).collect();
                keys.sort_unstable();
                keys
            }),
            Some(vec!["code", "details", "hint", "message"]),
            "{shown}"
        );
    }
    assert_eq!(
        snapshots(&pool).await,
        before,
        "hostile requests changed data"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn injection_in_values_is_plain_data(pool: PgPool) {
    seed(&pool).await;
    let before = snapshots(&pool).await;
    for query in [
        "name=eq.x' OR '1'='1",
        "name=eq.x\"; DROP TABLE teams;--",
        "name=eq.%27%3B%20DROP%20TABLE%20teams%3B--",
        "name=like.*' OR 1=1--",
        "name=ilike.%25'); DELETE FROM teams; --",
        "name=in.(\"a') OR 1=1--\",b)",
        "or=(name.eq.x' OR 1=1--,name.eq.$1)",
        "spec->>'x'); DROP TABLE teams;--=eq.1",
        "spec->0->>1=eq.x",
        "name=eq.$1",
        "name=eq.\\x00",
        "select=n:name&name=eq.a%0A;DROP TABLE teams",
        "name=gt.zzz",
    ] {
        let found = rows(&pool, "teams", query).await;
        assert!(found.is_empty(), "{query}: {found:?}");
    }
    // Output keys taken from the request are parameters too.
    let found = rows(&pool, "teams", "select=x1:name,spec->>k&name=eq.a").await;
    assert_eq!(found, [json!({"x1": "a", "k": null})]);
    assert_eq!(snapshots(&pool).await, before);
}
