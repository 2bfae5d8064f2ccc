//! `/api/connections` and `/api/connection/test/{id}` over real HTTP on a
//! real PostgreSQL: admins only, secret values never read back, rows from
//! elsewhere than the console read-only, and a test that really connects.

mod common;

use std::time::Duration;

use common::Api;
use quarterdeck_api::{AppState, AuthSettings};
use quarterdeck_connections::keyring::Keyring;
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;

const PASSWORD: &str = "correct horse battery";
const SECRET: &str = "s3cr3t-hunter2-value";

async fn start(pool: &PgPool, timeout: Duration) -> Api {
    let db = pool.clone();
    let api = Api::start_state(pool.clone(), move |_| {
        AppState::new(db, AuthSettings::default())
            .with_keyring(Keyring::for_tests())
            .with_connection_test_timeout(timeout)
    })
    .await;
    for role in ["admin", "editor", "viewer"] {
        api.person(&format!("{role}@x"), &[role], PASSWORD).await;
    }
    api
}

fn postgres(name: &str, url: &str) -> Value {
    json!({"name": name, "type": "postgres", "fields": {
        "url": {"value": url},
        "username": {"value": "postgres"},
        "password": {"value": SECRET},
    }})
}

async fn create(api: &Api, admin: &Client, body: Value) -> Value {
    let (status, view) = api
        .call(admin, Method::POST, "/api/connections", Some(body))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{view}");
    view
}

/// Tests the connection `view` as `admin`; the answer, which is always a 200.
async fn try_connection(api: &Api, admin: &Client, view: &Value) -> Value {
    let path = format!("/api/connection/test/{}", view["id"].as_str().unwrap());
    let (status, result) = api.call(admin, Method::POST, &path, None).await;
    assert_eq!(status, StatusCode::OK, "{result}");
    result
}

async fn stored(
    pool: &PgPool,
    name: &str,
) -> (Option<String>, Value, Option<chrono::DateTime<chrono::Utc>>) {
    sqlx::query_as("SELECT password, properties, deleted_at FROM connections WHERE name = $1")
        .bind(name)
        .fetch_one(pool)
        .await
        .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn an_admin_creates_reads_updates_and_deletes_a_connection(pool: PgPool) {
    let api = start(&pool, Duration::from_secs(5)).await;
    let admin = api.signed_in("admin@x", PASSWORD).await;
    let view = create(
        &api,
        &admin,
        postgres("orders", "postgres://db.example:5432/orders"),
    )
    .await;
    let id = view["id"].as_str().unwrap().to_owned();
    assert_eq!(view["name"], "orders");
    assert_eq!(view["namespace"], "default");
    assert_eq!(view["type"], "postgres");
    assert_eq!(view["source"], "UI");
    assert_eq!(view["ref"], "connection://default/orders");
    assert_eq!(view["createdBy"]["name"], "admin", "{view}");
    assert_eq!(
        view["fields"]["url"],
        json!({"value": "postgres://db.example:5432/orders"})
    );
    assert_eq!(view["fields"]["password"], json!({"set": true}));
    let (password, _, _) = stored(&pool, "orders").await;
    let password = password.unwrap();
    assert!(
        password.starts_with("enc:v1:"),
        "stored in plain text: {password}"
    );

    let (status, list) = api
        .call(&admin, Method::GET, "/api/connections", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["id"], id.as_str());
    assert!(list[0].get("fields").is_none(), "{list}");

    // A save without the password keeps it; a new url replaces the old one.
    let path = format!("/api/connections/{id}");
    let mut edited = postgres("orders", "postgres://db2.example:5432/orders");
    edited["fields"].as_object_mut().unwrap().remove("password");
    let (status, view) = api.call(&admin, Method::PUT, &path, Some(edited)).await;
    assert_eq!(status, StatusCode::OK, "{view}");
    assert_eq!(
        view["fields"]["url"]["value"],
        "postgres://db2.example:5432/orders"
    );
    assert_eq!(view["fields"]["password"], json!({"set": true}));
    assert_eq!(
        stored(&pool, "orders").await.0.as_deref(),
        Some(password.as_str())
    );

    // A reference replaces the static value and reads back as one.
    let mut referenced = postgres("orders", "postgres://db2.example:5432/orders");
    referenced["fields"]["password"] =
        json!({"valueFrom": {"secretKeyRef": {"name": "orders-db", "key": "password"}}});
    let (status, view) = api.call(&admin, Method::PUT, &path, Some(referenced)).await;
    assert_eq!(status, StatusCode::OK, "{view}");
    assert_eq!(
        view["fields"]["password"],
        json!({"valueFrom": {"secretKeyRef": {"name": "orders-db", "key": "password"}}})
    );
    let (status, fetched) = api.call(&admin, Method::GET, &path, None).await;
    assert_eq!((status, &fetched), (StatusCode::OK, &view));

    let status = api.status(&admin, Method::DELETE, &path, None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert!(stored(&pool, "orders").await.2.is_some(), "soft deleted");
    for method in [Method::GET, Method::DELETE] {
        let (status, body) = api.call(&admin, method.clone(), &path, None).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{method}: {body}");
    }
    let (status, body) = api
        .call(
            &admin,
            Method::PUT,
            &path,
            Some(postgres("orders", "postgres://x/y")),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (_, list) = api
        .call(&admin, Method::GET, "/api/connections", None)
        .await;
    assert_eq!(list, json!([]));
    // The name is free again.
    create(
        &api,
        &admin,
        postgres("orders", "postgres://db.example/orders"),
    )
    .await;
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn only_admins_read_write_or_test_connections(pool: PgPool) {
    let api = start(&pool, Duration::from_secs(5)).await;
    let admin = api.signed_in("admin@x", PASSWORD).await;
    let view = create(
        &api,
        &admin,
        postgres("orders", "postgres://db.example/orders"),
    )
    .await;
    let one = format!("/api/connections/{}", view["id"].as_str().unwrap());
    let test = format!("/api/connection/test/{}", view["id"].as_str().unwrap());
    for role in ["editor", "viewer"] {
        let client = api.signed_in(&format!("{role}@x"), PASSWORD).await;
        for (method, path, body) in [
            (Method::GET, "/api/connections", None),
            (
                Method::POST,
                "/api/connections",
                Some(postgres("mine", "postgres://x/y")),
            ),
            (Method::GET, one.as_str(), None),
            (
                Method::PUT,
                one.as_str(),
                Some(postgres("orders", "postgres://evil/y")),
            ),
            (Method::DELETE, one.as_str(), None),
            (Method::POST, test.as_str(), None),
        ] {
            let (status, reply) = api.call(&client, method.clone(), path, body).await;
            assert_eq!(
                status,
                StatusCode::FORBIDDEN,
                "{role} {method} {path}: {reply}"
            );
            assert!(!reply.to_string().contains(SECRET));
        }
        // Nor through the data API, which no one writes connections through.
        let (status, _) = api
            .call(&client, Method::GET, "/api/db/connections", None)
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{role}");
    }
    let (_, list) = api
        .call(&admin, Method::GET, "/api/connections", None)
        .await;
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(stored(&pool, "orders").await.2, None);
    let (status, reply) = api
        .call(
            &admin,
            Method::POST,
            "/api/db/connections",
            Some(json!({"name": "raw", "type": "postgres", "password": "plain"})),
        )
        .await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{reply}");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn secret_values_are_never_in_any_answer(pool: PgPool) {
    let api = start(&pool, Duration::from_secs(5)).await;
    let admin = api.signed_in("admin@x", PASSWORD).await;
    let editor = api.signed_in("editor@x", PASSWORD).await;
    let view = create(
        &api,
        &admin,
        postgres("orders", "postgres://db.example/orders"),
    )
    .await;
    let restic = create(
        &api,
        &admin,
        json!({"name": "backups", "type": "restic", "fields": {
            "url": {"value": "s3:https://s3.example/bucket"},
            "username": {"value": "AKIAEXAMPLE"},
            "password": {"value": SECRET},
            "awsConnectionName": {"value": "aws"},
            "secretKey": {"value": format!("{SECRET}-key")},
        }}),
    )
    .await;
    let mut answers = vec![view, restic.clone()];
    for path in [
        "/api/connections".to_owned(),
        format!("/api/connections/{}", restic["id"].as_str().unwrap()),
        "/api/db/connections".to_owned(),
        "/api/db/connections?select=*".to_owned(),
        "/api/connections/options".to_owned(),
    ] {
        let (status, body) = api.call(&admin, Method::GET, &path, None).await;
        assert_eq!(status, StatusCode::OK, "{path}: {body}");
        answers.push(body);
    }
    let (status, options) = api
        .call(
            &editor,
            Method::GET,
            "/api/connections/options?type=postgres",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{options}");
    assert_eq!(
        options,
        json!([{"id": answers[0]["id"], "name": "orders", "namespace": "default", "type": "postgres", "ref": "connection://default/orders"}])
    );
    answers.push(options);
    for answer in answers {
        let text = answer.to_string();
        assert!(!text.contains(SECRET), "{text}");
    }
    assert_eq!(restic["fields"]["secretKey"], json!({"set": true}));
    // The stored properties hold only the encrypted value.
    let (_, properties, _) = stored(&pool, "backups").await;
    assert!(
        properties["secretKey"]
            .as_str()
            .unwrap()
            .starts_with("enc:v1:")
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn options_are_for_whoever_writes_what_names_connections(pool: PgPool) {
    let api = start(&pool, Duration::from_secs(5)).await;
    let admin = api.signed_in("admin@x", PASSWORD).await;
    create(
        &api,
        &admin,
        postgres("orders", "postgres://db.example/orders"),
    )
    .await;
    create(
        &api,
        &admin,
        json!({"name": "hook", "type": "generic_webhook", "fields": {"url": {"value": "https://hooks.example/x"}}}),
    )
    .await;
    let editor = api.signed_in("editor@x", PASSWORD).await;
    let (status, all) = api
        .call(&editor, Method::GET, "/api/connections/options", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{all}");
    let names: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["hook", "orders"]);
    let (status, both) = api
        .call(
            &editor,
            Method::GET,
            "/api/connections/options?type=postgres&type=generic_webhook",
            None,
        )
        .await;
    assert_eq!(
        (status, both.as_array().unwrap().len()),
        (StatusCode::OK, 2)
    );
    let (status, body) = api
        .call(
            &editor,
            Method::GET,
            "/api/connections/options?type=nope",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["field"], "type");
    let viewer = api.signed_in("viewer@x", PASSWORD).await;
    let (status, _) = api
        .call(&viewer, Method::GET, "/api/connections/options", None)
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn rows_from_kubernetes_are_read_only(pool: PgPool) {
    let api = start(&pool, Duration::from_secs(5)).await;
    let admin = api.signed_in("admin@x", PASSWORD).await;
    let id: uuid::Uuid = sqlx::query_scalar(
        "INSERT INTO connections (name, namespace, type, url, password, source) \
         VALUES ('gitops', 'prod', 'postgres', 'postgres://db/x', 'secret://db/password', 'KubernetesCRD') RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let before = stored(&pool, "gitops").await;
    let path = format!("/api/connections/{id}");
    let (status, view) = api.call(&admin, Method::GET, &path, None).await;
    assert_eq!(status, StatusCode::OK, "{view}");
    assert_eq!(view["source"], "KubernetesCRD");
    assert_eq!(
        view["fields"]["password"],
        json!({"valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}})
    );
    let (status, body) = api
        .call(
            &admin,
            Method::PUT,
            &path,
            Some(postgres("gitops", "postgres://elsewhere/x")),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(
        body["message"],
        "connection prod/gitops is read-only: it comes from KubernetesCRD"
    );
    let (status, body) = api.call(&admin, Method::DELETE, &path, None).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(stored(&pool, "gitops").await, before);
    let url: String = sqlx::query_scalar("SELECT url FROM connections WHERE id = $1")
        .bind(id)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(url, "postgres://db/x");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_duplicate_name_conflicts_and_bad_fields_are_named(pool: PgPool) {
    let api = start(&pool, Duration::from_secs(5)).await;
    let admin = api.signed_in("admin@x", PASSWORD).await;
    let first = create(
        &api,
        &admin,
        postgres("orders", "postgres://db.example/orders"),
    )
    .await;
    let (status, body) = api
        .call(
            &admin,
            Method::POST,
            "/api/connections",
            Some(postgres("orders", "postgres://x/y")),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(
        body["message"],
        "a connection named default/orders already exists"
    );
    // Renaming another onto it conflicts too.
    let second = create(
        &api,
        &admin,
        postgres("billing", "postgres://db.example/billing"),
    )
    .await;
    let path = format!("/api/connections/{}", second["id"].as_str().unwrap());
    let (status, _) = api
        .call(
            &admin,
            Method::PUT,
            &path,
            Some(postgres("orders", "postgres://x/y")),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    // A rename to a free name is refused as well: references name connections.
    let (status, body) = api
        .call(
            &admin,
            Method::PUT,
            &path,
            Some(postgres("billing-2", "postgres://x/y")),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("cannot be renamed"),
        "{body}"
    );
    // Another namespace is another name.
    let mut elsewhere = postgres("orders", "postgres://x/y");
    elsewhere["namespace"] = json!("prod");
    create(&api, &admin, elsewhere).await;

    let (status, body) = api
        .call(
            &admin,
            Method::POST,
            "/api/connections",
            Some(json!({"name": "Bad Name", "type": "postgres", "fields": {"username": {"value": "u"}}})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["fields"]["url"], "This field is required");
    assert_eq!(body["fields"]["password"], "This field is required");
    assert!(body["fields"]["name"].is_string(), "{body}");
    let (status, body) = api
        .call(
            &admin,
            Method::POST,
            "/api/connections",
            Some(json!({"name": "x", "type": "carrier-pigeon"})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body["fields"]["type"].is_string(), "{body}");
    let (_, list) = api
        .call(&admin, Method::GET, "/api/connections", None)
        .await;
    assert_eq!(list.as_array().unwrap().len(), 3);
    assert_eq!(first["name"], "orders");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn testing_connects_for_real_and_names_what_failed(pool: PgPool) {
    let database = std::env::var("DATABASE_URL").expect("DATABASE_URL names the test PostgreSQL");
    let api = start(&pool, Duration::from_secs(1)).await;
    let admin = api.signed_in("admin@x", PASSWORD).await;
    let live = create(&api, &admin, postgres("live", &database)).await;
    let result = try_connection(&api, &admin, &live).await;
    assert_eq!(result["ok"], true, "{result}");
    assert!(
        result["message"].as_str().unwrap().contains("PostgreSQL"),
        "{result}"
    );
    assert!(result["elapsedMs"].is_u64(), "{result}");

    // A closed port: the server's own refusal.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let refused = create(
        &api,
        &admin,
        postgres("closed", &format!("postgres://127.0.0.1:{closed}/x")),
    )
    .await;
    let result = try_connection(&api, &admin, &refused).await;
    assert_eq!(result["ok"], false, "{result}");
    let message = result["message"].as_str().unwrap();
    assert!(message.to_lowercase().contains("refused"), "{message}");

    // A port that accepts and never answers: the timeout names the step.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let hung = create(
        &api,
        &admin,
        postgres("silent", &format!("postgres://127.0.0.1:{port}/x")),
    )
    .await;
    let result = try_connection(&api, &admin, &hung).await;
    assert_eq!(result["ok"], false, "{result}");
    let message = result["message"].as_str().unwrap();
    assert!(message.starts_with("timed out after 1s"), "{message}");
    assert!(!message.contains(SECRET), "{message}");
    drop(silent);

    let (status, _) = api
        .call(
            &admin,
            Method::POST,
            &format!("/api/connection/test/{}", uuid::Uuid::new_v4()),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_connection_keeps_its_type(pool: PgPool) {
    let api = start(&pool, Duration::from_secs(5)).await;
    let admin = api.signed_in("admin@x", PASSWORD).await;
    let hook = create(
        &api,
        &admin,
        json!({"name": "hook", "type": "generic_webhook", "fields": {"url": {"value": "https://x"}}}),
    )
    .await;
    let path = format!("/api/connections/{}", hook["id"].as_str().unwrap());
    let (status, body) = api
        .call(
            &admin,
            Method::PUT,
            &path,
            Some(json!({"name": "hook", "type": "zulip_chat", "fields": {"host": {"value": "z"}}})),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(
        body["message"],
        "connection default/hook is of type generic_webhook: a connection's type cannot change"
    );
}
