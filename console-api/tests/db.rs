//! The data API over real HTTP: roles per relation, access scopes end to
//! end, guest visibility, and hostile input.

mod common;

use common::{Api, Subject};
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

const PASSWORD: &str = "correct horse battery";
const ROLES: [&str; 6] = [
    "admin",
    "editor",
    "viewer",
    "guest",
    "commander",
    "responder",
];

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn each_role_against_the_relations(pool: PgPool) {
    let api = Api::start(pool).await;
    // (method, path, body, roles allowed)
    let cases: Vec<(Method, &str, Option<Value>, &[&str])> = vec![
        (Method::GET, "/api/db/access_scopes", None, &ROLES),
        (Method::GET, "/api/db/canaries", None, &ROLES),
        (Method::GET, "/api/db/people?select=id,name", None, &ROLES),
        (Method::GET, "/api/db/connections", None, &["admin"]),
        (
            Method::POST,
            "/api/db/canaries",
            Some(json!({"name": "c", "spec": {}})),
            &["admin", "editor"],
        ),
        (
            Method::POST,
            "/api/db/properties",
            Some(json!({"name": "x.disable", "value": "true"})),
            &["admin", "editor"],
        ),
        (
            Method::POST,
            "/api/db/incidents",
            Some(json!({"title": "down"})),
            &["admin", "editor", "commander", "responder"],
        ),
        (
            Method::POST,
            "/api/db/permissions",
            Some(
                json!({"subject_type": "group", "subject": "viewer", "action": "read", "object": "canaries"}),
            ),
            &["admin", "editor"],
        ),
    ];
    for role in ROLES {
        let email = format!("{role}@example.com");
        api.person(&email, &[role], PASSWORD).await;
        let client = api.signed_in(&email, PASSWORD).await;
        for (method, path, body, allowed) in &cases {
            // Unique names per role so allowed writes do not collide.
            let body = body.clone().map(|mut b| {
                if let Some(name) = b.get("name").and_then(Value::as_str) {
                    b["name"] = json!(format!("{name}-{role}"));
                }
                b
            });
            let (status, reply) = api.call(&client, method.clone(), path, body).await;
            if allowed.contains(&role) {
                assert!(
                    status.is_success(),
                    "{role} {method} {path}: {status} {reply}"
                );
            } else {
                assert_eq!(
                    status,
                    StatusCode::FORBIDDEN,
                    "{role} {method} {path}: {reply}"
                );
                // PostgREST's shape, as every data API error.
                assert_eq!(reply["code"], "EFORBIDDEN", "{reply}");
                assert!(reply["message"].is_string(), "{reply}");
                assert!(
                    reply["details"]["resource"].is_string()
                        && reply["details"]["action"].is_string(),
                    "{reply}"
                );
            }
        }
    }
    let (status, reply) = api
        .call(&Client::new(), Method::GET, "/api/db/canaries", None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        reply,
        json!({"code": "EUNAUTHORIZED", "message": "authentication required", "details": null, "hint": null})
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn access_scopes_end_to_end(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let admin_id = api.person("root@example.com", &["admin"], PASSWORD).await;
    let guest = api.person("guest@example.com", &["guest"], PASSWORD).await;
    let admin = api.signed_in("root@example.com", PASSWORD).await;
    let valid = json!({"name": "prod", "person_id": guest, "resources": ["config"], "scopes": [{"tags": {"env": "prod"}}]});

    // Every validation message of the spec, from the server.
    let invalid = [
        (
            json!({"person_id": null}),
            "Either a Guest or Team must be selected",
        ),
        (
            json!({"resources": []}),
            "At least one resource type is required",
        ),
        (json!({"scopes": []}), "At least one scope is required"),
        (
            json!({"scopes": [{}]}),
            "Each scope must have at least one of: tags, agents, or names",
        ),
        (
            json!({"scopes": [{"names": ["*", "a"]}]}),
            "Wildcard '*' must be the only name when used",
        ),
    ];
    for (change, message) in invalid {
        let mut body = valid.clone();
        for (k, v) in change.as_object().unwrap() {
            body[k] = v.clone();
        }
        let (status, reply) = api
            .call(&admin, Method::POST, "/api/db/access_scopes", Some(body))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
        assert_eq!(reply["message"], message, "{reply}");
    }
    let mut nameless = valid.clone();
    nameless["name"] = json!("");
    let (status, reply) = api
        .call(
            &admin,
            Method::POST,
            "/api/db/access_scopes",
            Some(nameless),
        )
        .await;
    assert_eq!(
        (status, reply["message"].as_str()),
        (StatusCode::BAD_REQUEST, Some("Name is required"))
    );

    let (status, created) = api
        .call(&admin, Method::POST, "/api/db/access_scopes", Some(valid))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created[0]["id"].as_str().unwrap().to_owned();
    assert_eq!(created[0]["source"], "UI");
    assert_eq!(created[0]["created_by"], json!(admin_id));

    let list_path = "/api/db/access_scopes?select=*,person:person_id(id,name,email),team:team_id(id,name),created_by(id,name,email)&deleted_at=is.null&order=name";
    let (status, list) = api.call(&admin, Method::GET, list_path, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list[0]["person"]["email"], "guest@example.com");
    assert_eq!(list[0]["created_by"]["email"], "root@example.com");
    assert!(!list.to_string().contains("password"));

    let (status, _) = api
        .call(
            &admin,
            Method::PATCH,
            &format!("/api/db/access_scopes?id=eq.{id}"),
            Some(json!({"description": "prod only"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, reply) = api
        .call(
            &admin,
            Method::PATCH,
            &format!("/api/db/access_scopes?id=eq.{id}"),
            Some(json!({"resources": []})),
        )
        .await;
    assert_eq!(
        (status, reply["message"].as_str()),
        (
            StatusCode::BAD_REQUEST,
            Some("At least one resource type is required")
        )
    );
    let (status, _) = api
        .call(
            &admin,
            Method::PATCH,
            &format!("/api/db/access_scopes?id=eq.{id}"),
            Some(json!({"deleted_at": "2026-01-01T00:00:00Z"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (_, list) = api.call(&admin, Method::GET, list_path, None).await;
    assert_eq!(list, json!([]), "soft-deleted scopes leave the list");

    // Rows from the operator are read-only through every path.
    let crd = Uuid::new_v4();
    sqlx::query("INSERT INTO access_scopes (id, name, person_id, resources, scopes, source) VALUES ($1, 'gitops', $2, '{config}', '[{\"names\":[\"a\"]}]', 'KubernetesCRD')")
        .bind(crd)
        .bind(guest)
        .execute(&pool)
        .await
        .unwrap();
    for body in [
        json!({"description": "changed"}),
        json!({"deleted_at": "2026-01-01T00:00:00Z"}),
    ] {
        let (status, reply) = api
            .call(
                &admin,
                Method::PATCH,
                &format!("/api/db/access_scopes?id=eq.{crd}"),
                Some(body),
            )
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN);
        assert_eq!(
            reply["message"],
            "Read-Only Mode: This resource is managed by Kubernetes CRD and cannot be edited from the UI."
        );
    }
    let (status, _) = api
        .call(
            &admin,
            Method::DELETE,
            &format!("/api/db/access_scopes?id=eq.{crd}"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (description, deleted): (Option<String>, Option<chrono::DateTime<chrono::Utc>>) =
        sqlx::query_as("SELECT description, deleted_at FROM access_scopes WHERE id = $1")
            .bind(crd)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!((description, deleted), (None, None), "unchanged");
}

/// Seeds two of each scoped kind: one tagged env=prod named `visible-*`, one not.
async fn seed_scoped_rows(pool: &PgPool) {
    for (name, env) in [("visible", "prod"), ("hidden", "dev")] {
        sqlx::query("INSERT INTO config_items (config_class, type, name, tags) VALUES ('Kubernetes', 'Kubernetes::Pod', $1, jsonb_build_object('env', $2::text))")
            .bind(format!("{name}-config"))
            .bind(env)
            .execute(pool)
            .await
            .unwrap();
        sqlx::query("INSERT INTO components (name, labels) VALUES ($1, jsonb_build_object('env', $2::text))")
            .bind(format!("{name}-component"))
            .bind(env)
            .execute(pool)
            .await
            .unwrap();
        sqlx::query("INSERT INTO playbooks (name, title, spec, labels) VALUES ($1, $1, '{}', jsonb_build_object('env', $2::text))")
            .bind(format!("{name}-playbook"))
            .bind(env)
            .execute(pool)
            .await
            .unwrap();
        let canary: Uuid = sqlx::query_scalar("INSERT INTO canaries (name, spec, labels) VALUES ($1, '{}', jsonb_build_object('env', $2::text)) RETURNING id")
            .bind(format!("{name}-canary"))
            .bind(env)
            .fetch_one(pool)
            .await
            .unwrap();
        sqlx::query("INSERT INTO checks (canary_id, type, name) VALUES ($1, 'http', $2)")
            .bind(canary)
            .bind(format!("{name}-check"))
            .execute(pool)
            .await
            .unwrap();
    }
}

async fn names(api: &Api, client: &Client, relation: &str) -> Vec<String> {
    let (status, rows) = api
        .call(
            client,
            Method::GET,
            &format!("/api/db/{relation}?select=name&order=name"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{relation}: {rows}");
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_guest_sees_exactly_what_their_scopes_match(pool: PgPool) {
    seed_scoped_rows(&pool).await;
    let api = Api::start(pool.clone()).await;
    let guest = api.person("guest@example.com", &["guest"], PASSWORD).await;
    api.person("lonely@example.com", &["guest"], PASSWORD).await;
    api.person("root@example.com", &["admin"], PASSWORD).await;
    api.access_scope(
        "prod",
        Subject::Person(guest),
        &["*"],
        json!([{"tags": {"env": "prod"}}]),
    )
    .await;
    let scoped = api.signed_in("guest@example.com", PASSWORD).await;
    let unscoped = api.signed_in("lonely@example.com", PASSWORD).await;
    let admin = api.signed_in("root@example.com", PASSWORD).await;
    for (relation, kind) in [
        ("config_items", "config"),
        ("components", "component"),
        ("playbooks", "playbook"),
        ("canaries", "canary"),
        ("checks", "check"),
    ] {
        assert_eq!(
            names(&api, &scoped, relation).await,
            [format!("visible-{kind}")],
            "{relation}"
        );
        assert!(
            names(&api, &unscoped, relation).await.is_empty(),
            "{relation}: a guest without scopes sees none"
        );
        assert_eq!(
            names(&api, &admin, relation).await.len(),
            2,
            "{relation}: admins see all"
        );
    }
    // Through an embed too: the hidden canary's checks stay hidden.
    let (_, rows) = api
        .call(
            &scoped,
            Method::GET,
            "/api/db/checks?select=name,canaries(name)",
            None,
        )
        .await;
    assert_eq!(rows.as_array().unwrap().len(), 1, "{rows}");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn hostile_requests_get_clean_errors_and_change_nothing(pool: PgPool) {
    seed_scoped_rows(&pool).await;
    let api = Api::start(pool.clone()).await;
    api.person("root@example.com", &["admin"], PASSWORD).await;
    let admin = api.signed_in("root@example.com", PASSWORD).await;
    let snapshot = || async {
        sqlx::query_scalar::<_, String>(
            "SELECT (SELECT string_agg(name || coalesce(deleted_at::text, ''), ',' ORDER BY name) FROM config_items) || '|' || \
                    (SELECT count(*) FROM people)::text || '|' || (SELECT count(*) FROM canaries)::text || '|' || \
                    (SELECT string_agg(table_name, ',' ORDER BY table_name) FROM information_schema.tables WHERE table_schema = 'public')",
        )
        .fetch_one(&pool)
        .await
        .unwrap()
    };
    let before = snapshot().await;
    let gets = [
        "/api/db/config_items?select=name;DROP TABLE people",
        "/api/db/config_items?select=(SELECT password_hash FROM people)",
        "/api/db/config_items?select=*,people(password_hash)",
        "/api/db/people?select=password_hash",
        "/api/db/people?password_hash=eq.x",
        "/api/db/people?order=password_hash",
        "/api/db/config_items?order=name;DELETE FROM config_items",
        "/api/db/config_items?order=name.sideways",
        "/api/db/config_items?order=(select 1)",
        "/api/db/config_items?name=nope.x",
        "/api/db/config_items?name=eq",
        "/api/db/config_items?name",
        "/api/db/config_items?or=(name.eq.a",
        "/api/db/config_items?or=name.eq.a)",
        "/api/db/config_items?or=(name.eq.a,and(type.eq.b)",
        "/api/db/config_items?and=()",
        "/api/db/config_items?not.name=eq.a",
        "/api/db/config_items?name=not.not.not.eq.a",
        "/api/db/config_items?name=in.(a,b",
        "/api/db/config_items?name=in.a,b)",
        "/api/db/config_items?name=is.maybe",
        "/api/db/config_items?limit=-1",
        "/api/db/config_items?limit=abc",
        "/api/db/config_items?offset=-5",
        "/api/db/config_items?limit=1e9999",
        "/api/db/config_items?unknown_column=eq.1",
        "/api/db/config_items?select=unknown_column",
        "/api/db/config_items?select=name:",
        "/api/db/config_items?select=name,,type",
        "/api/db/config_items?select=*,config_scrapers(",
        "/api/db/config_items?select=*,no_such_relation(*)",
        "/api/db/config_items?select=a(b(c(d(e(f(g(h(i(j(k(l(m(n(o(p(q(r(s(t(u))))))))))))))))))))",
        "/api/db/pg_shadow",
        "/api/db/information_schema.tables",
        "/api/db/access_tokens",
        "/api/db/sessions",
        "/api/db/invites",
        "/api/db/config_items%3BDROP%20TABLE%20people",
        "/api/db/..%2Fpeople",
        "/api/db/config_items?name=eq.%00",
        "/api/db/config_items?%ff=eq.1",
        "/api/db/config_items?created_at=gt.not-a-date",
        "/api/db/config_items?id=eq.not-a-uuid",
        "/api/db/config_items?select=name->>x;drop",
        "/api/db/config_items?order=name.asc.nullsmaybe",
        "/api/db/connections?select=password",
        "/api/db/connections?select=*,certificate",
    ];
    let mut not_refused = Vec::new();
    for path in gets {
        let (status, body) = api.call(&admin, Method::GET, path, None).await;
        if !status.is_client_error() || body.get("message").is_none() {
            not_refused.push(format!("{path}: {status} {body}"));
        }
    }
    assert!(not_refused.is_empty(), "{not_refused:#?}");
    // SQL inside a value is bound as data: it matches nothing and runs nothing.
    for path in [
        "/api/db/config_items?name=eq.x';DROP TABLE people;--",
        "/api/db/config_items?name=like.%25%27%20OR%201%3D1",
    ] {
        let (status, body) = api.call(&admin, Method::GET, path, None).await;
        assert_eq!((status, body), (StatusCode::OK, json!([])), "{path}");
    }
    let huge_in = format!(
        "/api/db/config_items?name=in.({})",
        vec!["x"; 20_000].join(",")
    );
    let (status, _) = api.call(&admin, Method::GET, &huge_in, None).await;
    assert!(status.is_client_error(), "huge in-list: {status}");

    let writes: Vec<(Method, &str, Value)> = vec![
        (
            Method::PATCH,
            "/api/db/config_items",
            json!({"name": "everything"}),
        ),
        (Method::DELETE, "/api/db/config_items", json!(null)),
        (Method::DELETE, "/api/db/people", json!(null)),
        (
            Method::POST,
            "/api/db/people",
            json!({"name": "x", "password_hash": "$argon2id$fake"}),
        ),
        (
            Method::POST,
            "/api/db/people",
            json!({"name": "x", "roles": ["admin"]}),
        ),
        (
            Method::POST,
            "/api/db/canaries",
            json!({"name": "x", "spec": {}, "source": "KubernetesCRD"}),
        ),
        (
            Method::POST,
            "/api/db/canaries",
            json!({"name": "x", "spec": {}, "nope": 1}),
        ),
        (Method::POST, "/api/db/canaries", json!("a string")),
        (Method::POST, "/api/db/canaries", json!([1, 2])),
        (
            Method::POST,
            "/api/db/canaries",
            json!({"name": {"nested": "object"}, "spec": {}}),
        ),
        (Method::POST, "/api/db/config_items", json!({"name": "x"})),
        (
            Method::PATCH,
            "/api/db/config_items?name=eq.visible-config",
            json!({"id; DROP TABLE people": 1}),
        ),
        (
            Method::PATCH,
            "/api/db/canaries?name=eq.visible-canary",
            json!({"spec": {"a": 1}, "namespace": ["not", "text"]}),
        ),
        (
            Method::POST,
            "/api/db/access_scopes",
            json!({"name": "x", "resources": ["config"], "scopes": []}),
        ),
    ];
    for (method, path, body) in writes {
        let body = (!body.is_null()).then_some(body);
        let (status, reply) = api.call(&admin, method.clone(), path, body).await;
        assert!(
            status.is_client_error(),
            "{method} {path}: {status} {reply}"
        );
    }
    let res = admin
        .post(api.at("/api/db/canaries"))
        .header("content-type", "application/json")
        .body("{\"name\": ")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST, "malformed JSON");
    assert_eq!(snapshot().await, before, "nothing changed");
}

/// What the signed-in caller's roles decide at the data API: secrets in JSON
/// for non-writers, other people's contact details, out-of-scope job runs,
/// and answers past the limits.
#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn readers_get_no_secrets_contact_details_or_out_of_scope_runs(pool: PgPool) {
    seed_scoped_rows(&pool).await;
    let api = Api::start(pool.clone()).await;
    let guest = api.person("guest@example.com", &["guest"], PASSWORD).await;
    api.person("viewer@example.com", &["viewer"], PASSWORD)
        .await;
    api.person("editor@example.com", &["editor"], PASSWORD)
        .await;
    api.person("root@example.com", &["admin"], PASSWORD).await;
    api.access_scope(
        "prod",
        Subject::Person(guest),
        &["*"],
        json!([{"tags": {"env": "prod"}}]),
    )
    .await;
    sqlx::query(
        "INSERT INTO notifications (name, events, custom_services) \
         VALUES ('hook', '{check.failed}', '[{\"url\": \"https://hooks.example.com/x?token=s3cret\"}]')",
    )
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO job_history (name, resource_type, resource_id) \
         SELECT 'run-' || name, 'canary', id::text FROM canaries \
         UNION ALL SELECT 'HealthCheckScheduler', NULL, NULL",
    )
    .execute(&pool)
    .await
    .unwrap();
    let viewer = api.signed_in("viewer@example.com", PASSWORD).await;
    let editor = api.signed_in("editor@example.com", PASSWORD).await;
    let root = api.signed_in("root@example.com", PASSWORD).await;
    let scoped = api.signed_in("guest@example.com", PASSWORD).await;

    let hook = "/api/db/notifications?select=custom_services";
    let (status, rows) = api.call(&viewer, Method::GET, hook, None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(!rows.to_string().contains("s3cret"), "{rows}");
    let (_, rows) = api.call(&editor, Method::GET, hook, None).await;
    assert!(
        rows.to_string().contains("s3cret"),
        "writers see it: {rows}"
    );

    let emails = "/api/db/people?select=email&order=email";
    let (_, rows) = api.call(&viewer, Method::GET, emails, None).await;
    let shown: Vec<&Value> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["email"])
        .filter(|e| !e.is_null())
        .collect();
    assert_eq!(shown, [&json!("viewer@example.com")], "only their own");
    let (_, rows) = api.call(&root, Method::GET, emails, None).await;
    assert!(
        rows.as_array()
            .unwrap()
            .iter()
            .all(|r| r["email"].is_string())
    );

    assert_eq!(
        names(&api, &scoped, "job_histories").await,
        ["run-visible-canary"]
    );
    assert_eq!(names(&api, &root, "job_histories").await.len(), 3);
}
