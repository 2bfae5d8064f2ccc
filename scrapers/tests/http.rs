//! The `http` scraper against a real local HTTP server (axum): headers, basic
//! authentication from a named connection, JSON and YAML, pagination by `Link`
//! headers and by a next field, error statuses with the server's message, and
//! the connection's credentials kept to its own origin.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use base64::Engine;
use quarterdeck_checks::{Connection, StaticLookup};
use quarterdeck_scrapers::sources::http;
use quarterdeck_scrapers::{Context, ScrapeError, SourceOutput, run};
use serde::Deserialize;
use serde_json::{Value, json};

const PASSWORD: &str = "s3cret-pw";
const TOKEN: &str = "t0ken-value";

#[derive(Clone, Default)]
struct Server {
    /// Requests answered by `/flaky` so far.
    flaky: Arc<AtomicUsize>,
}

#[derive(Deserialize)]
struct PageQuery {
    page: Option<usize>,
}

fn authorized(headers: &HeaderMap) -> bool {
    let expected = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("estate:{PASSWORD}"))
    );
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        == Some(expected.as_str())
}

async fn hosts(headers: HeaderMap) -> Response {
    if !authorized(&headers) {
        return (StatusCode::UNAUTHORIZED, "who are you?").into_response();
    }
    if headers.get("x-team").and_then(|v| v.to_str().ok()) != Some("platform") {
        return (StatusCode::BAD_REQUEST, "the X-Team header is missing").into_response();
    }
    if headers.get("x-api-key").and_then(|v| v.to_str().ok()) != Some(TOKEN) {
        return (StatusCode::FORBIDDEN, "bad api key").into_response();
    }
    Json(json!({"hosts": [
        {"id": "h-1", "name": "web-1", "state": "up"},
        {"id": "h-2", "name": "db-1", "state": "down"},
    ]}))
    .into_response()
}

async fn yaml() -> Response {
    (
        [(header::CONTENT_TYPE, "application/yaml")],
        "kind: Queue\nname: orders\ndepth: 3\n---\nkind: Queue\nname: refunds\ndepth: 0\n",
    )
        .into_response()
}

/// Three pages of two items, each pointing at the next with a `Link` header.
async fn linked(Query(query): Query<PageQuery>) -> Response {
    let page = query.page.unwrap_or(1);
    let body = Json(json!([
        {"id": format!("p{page}-a")},
        {"id": format!("p{page}-b")},
    ]));
    if page < 3 {
        let link = format!(
            "</linked?page={}>; rel=\"next\", </linked?page=1>; rel=\"first\"",
            page + 1
        );
        ([(header::LINK, link)], body).into_response()
    } else {
        body.into_response()
    }
}

/// Three pages carrying the next page's absolute URL in a `next` field.
async fn cursor(Query(query): Query<PageQuery>, headers: HeaderMap) -> Response {
    let page = query.page.unwrap_or(1);
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let next = (page < 3).then(|| format!("http://{host}/cursor?page={}", page + 1));
    Json(json!({"value": [{"id": format!("c{page}")}], "next": next})).into_response()
}

/// Pages forever, to show `maxPages` bounds them.
async fn endless(Query(query): Query<PageQuery>) -> Response {
    let page = query.page.unwrap_or(1);
    Json(json!({"items": [{"id": page}], "next": format!("/endless?page={}", page + 1)}))
        .into_response()
}

async fn broken() -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        "estate API in maintenance until 10:00",
    )
        .into_response()
}

/// Answers 429 once, then the document.
async fn flaky(State(server): State<Server>) -> Response {
    if server.flaky.fetch_add(1, Ordering::SeqCst) == 0 {
        return (
            StatusCode::TOO_MANY_REQUESTS,
            [(header::RETRY_AFTER, "0")],
            "slow down",
        )
            .into_response();
    }
    Json(json!({"ok": true})).into_response()
}

/// Sends the client elsewhere.
async fn elsewhere(Query(query): Query<PageQuery>) -> Response {
    let _ = query;
    Json(json!({"items": [], "next": "http://127.0.0.2:9/stolen"})).into_response()
}

async fn echo_password() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        format!("wrong password {PASSWORD}"),
    )
        .into_response()
}

async fn start() -> String {
    let app = Router::new()
        .route("/hosts", get(hosts))
        .route("/queues.yaml", get(yaml))
        .route("/linked", get(linked))
        .route("/cursor", get(cursor))
        .route("/endless", get(endless))
        .route("/broken", get(broken))
        .route("/flaky", get(flaky))
        .route("/elsewhere", get(elsewhere))
        .route("/echo", get(echo_password))
        .with_state(Server::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{address}")
}

fn context(base: &str) -> Context {
    let lookup = StaticLookup::new()
        .with_secret("platform", "estate-api", "token", TOKEN)
        .with_connection(
            "platform",
            "estate-api",
            Connection {
                url: Some(format!("{base}/hosts")),
                username: Some("estate".into()),
                password: Some(PASSWORD.into()),
                ..Connection::default()
            },
        );
    Context {
        namespace: "platform".into(),
        lookup: Arc::new(lookup),
        kube: None,
        scripts_allowed: false,
        script_user: "nobody".into(),
        timeout: Duration::from_secs(20),
    }
}

async fn scrape(base: &str, spec: Value) -> Result<SourceOutput, ScrapeError> {
    http::scrape(&context(base), &spec).await
}

fn configs(output: &SourceOutput) -> Vec<Value> {
    output.items.iter().map(|i| i.config.clone()).collect()
}

fn api_key() -> Value {
    json!({"name": "X-API-Key", "valueFrom": {"secretKeyRef": {"name": "estate-api", "key": "token"}}})
}

#[tokio::test]
async fn a_connection_gives_url_and_basic_credentials_and_headers_are_sent() {
    let base = start().await;
    let output = scrape(
        &base,
        json!({
            "connection": "connection://platform/estate-api",
            "headers": [{"name": "X-Team", "value": "platform"}, api_key()],
        }),
    )
    .await
    .expect("scrape");
    assert_eq!(output.errors, vec![]);
    assert_eq!(output.items.len(), 1, "one item for the whole answer");
    assert_eq!(output.items[0].config["hosts"][1]["name"], "db-1");
    assert_eq!(
        output.items[0].source.as_deref(),
        Some(format!("{base}/hosts").as_str())
    );
}

#[tokio::test]
async fn a_scrapeconfig_splits_the_answer_by_items_into_config_items() {
    let base = start().await;
    let spec = json!({
        "http": [{
            "connection": "connection://platform/estate-api",
            "url": format!("{base}/hosts"),
            "headers": [{"name": "X-Team", "value": "platform"}, api_key()],
            "items": "$.hosts[*]",
            "id": "$.id",
            "name": "$.name",
            "type": "Estate::Host",
            "status": "$.state",
        }]
    });
    let output = run(&context(&base), &spec).await;
    assert!(output.errors.is_empty(), "{:?}", output.errors);
    let items: Vec<(String, String, String, Option<String>)> = output
        .items
        .iter()
        .map(|i| {
            (
                i.id.clone(),
                i.name.clone(),
                i.config_type.clone(),
                i.status.clone(),
            )
        })
        .collect();
    assert_eq!(
        items,
        vec![
            (
                "h-1".into(),
                "web-1".into(),
                "Estate::Host".into(),
                Some("up".into())
            ),
            (
                "h-2".into(),
                "db-1".into(),
                "Estate::Host".into(),
                Some("down".into())
            ),
        ]
    );
}

#[tokio::test]
async fn spec_credentials_override_the_connection_and_a_refusal_carries_the_servers_message() {
    let base = start().await;
    let error = scrape(
        &base,
        json!({
            "connection": "connection://platform/estate-api",
            "password": {"value": "wrong"},
            "headers": [{"name": "X-Team", "value": "platform"}],
        }),
    )
    .await
    .unwrap_err();
    assert_eq!(
        error,
        ScrapeError::Source(format!(
            "GET {base}/hosts answered 401 Unauthorized: who are you?"
        ))
    );
}

#[tokio::test]
async fn yaml_answers_give_one_item_per_document() {
    let base = start().await;
    let output = scrape(&base, json!({"url": format!("{base}/queues.yaml")}))
        .await
        .expect("scrape");
    assert_eq!(
        configs(&output),
        vec![
            json!({"kind": "Queue", "name": "orders", "depth": 3}),
            json!({"kind": "Queue", "name": "refunds", "depth": 0}),
        ]
    );
}

#[tokio::test]
async fn link_headers_are_followed_through_three_pages_into_one_list() {
    let base = start().await;
    let output = scrape(
        &base,
        json!({"url": format!("{base}/linked"), "pagination": {}}),
    )
    .await
    .expect("scrape");
    assert_eq!(output.errors, vec![]);
    let ids: Vec<Value> = configs(&output)[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].clone())
        .collect();
    assert_eq!(
        ids,
        vec![
            json!("p1-a"),
            json!("p1-b"),
            json!("p2-a"),
            json!("p2-b"),
            json!("p3-a"),
            json!("p3-b")
        ]
    );
}

#[tokio::test]
async fn next_page_expressions_in_cel_or_jsonpath_with_per_page_and_reduce() {
    let base = start().await;
    // Mission Control's form: CEL over response.body, the default reduce concatenating `value`.
    let output = scrape(
        &base,
        json!({
            "url": format!("{base}/cursor"),
            "pagination": {"nextPageExpr": "has(response.body.next) && response.body.next != null ? response.body.next : \"\""},
        }),
    )
    .await
    .expect("scrape");
    assert_eq!(
        configs(&output),
        vec![json!([{"id": "c1"}, {"id": "c2"}, {"id": "c3"}])]
    );

    // A JSONPath into the body, one item per page.
    let output = scrape(
        &base,
        json!({
            "url": format!("{base}/cursor"),
            "pagination": {"nextPageExpr": "$.next", "perPage": true},
        }),
    )
    .await
    .expect("scrape");
    let sources: Vec<Option<String>> = output.items.iter().map(|i| i.source.clone()).collect();
    assert_eq!(
        sources,
        vec![
            Some(format!("{base}/cursor")),
            Some(format!("{base}/cursor?page=2")),
            Some(format!("{base}/cursor?page=3")),
        ]
    );

    // A reduce expression.
    let output = scrape(
        &base,
        json!({
            "url": format!("{base}/cursor"),
            "pagination": {"nextPageExpr": "$.next", "reduceExpr": "acc + [page.value[0].id]"},
        }),
    )
    .await
    .expect("scrape");
    assert_eq!(configs(&output), vec![json!(["c1", "c2", "c3"])]);
}

#[tokio::test]
async fn max_pages_bounds_pagination_and_says_so() {
    let base = start().await;
    let output = scrape(
        &base,
        json!({
            "url": format!("{base}/endless"),
            "pagination": {"nextPageExpr": "$.next", "maxPages": 4},
        }),
    )
    .await
    .expect("scrape");
    assert_eq!(
        configs(&output),
        vec![json!([{"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}])]
    );
    assert_eq!(
        output.errors,
        vec![(
            "pagination".to_owned(),
            ScrapeError::Source("stopped after 4 pages (maxPages) with more pages to read".into())
        )]
    );
}

#[tokio::test]
async fn an_error_status_carries_the_servers_message() {
    let base = start().await;
    let error = scrape(&base, json!({"url": format!("{base}/broken")}))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ScrapeError::Source(format!(
            "GET {base}/broken answered 503 Service Unavailable: estate API in maintenance until 10:00"
        ))
    );
}

#[tokio::test]
async fn too_many_requests_is_retried() {
    let base = start().await;
    let output = scrape(&base, json!({"url": format!("{base}/flaky")}))
        .await
        .expect("scrape");
    assert_eq!(configs(&output), vec![json!({"ok": true})]);
}

#[tokio::test]
async fn a_connections_credentials_stay_on_its_own_origin() {
    let base = start().await;
    // Another port of the same host is another origin.
    let error = scrape(
        &base,
        json!({
            "connection": "connection://platform/estate-api",
            "url": "http://127.0.0.1:9/collect",
        }),
    )
    .await
    .unwrap_err();
    assert_eq!(
        error,
        ScrapeError::Spec {
            field: "url".into(),
            message: "connection \"connection://platform/estate-api\" is used with another endpoint: its credentials go only to its own origin".into(),
        }
    );

    // Another path of the connection's origin is fine; its next page elsewhere is not.
    let error = scrape(
        &base,
        json!({
            "connection": "connection://platform/estate-api",
            "url": format!("{base}/elsewhere"),
            "pagination": {"nextPageExpr": "$.next"},
        }),
    )
    .await
    .unwrap_err();
    assert_eq!(
        error,
        ScrapeError::Source(
            "the next page http://127.0.0.2:9/stolen is on another origin than the first: credentials and headers go only to the first request's origin".into()
        )
    );
}

#[tokio::test]
async fn secrets_never_appear_in_errors() {
    let base = start().await;
    let error = scrape(
        &base,
        json!({
            "connection": "connection://platform/estate-api",
            "url": format!("{base}/echo"),
        }),
    )
    .await
    .unwrap_err();
    assert_eq!(
        error,
        ScrapeError::Source(format!(
            "GET {base}/echo answered 401 Unauthorized: wrong password ***"
        ))
    );
}

#[tokio::test]
async fn env_values_fill_the_url_template_and_unsupported_auth_is_refused() {
    let base = start().await;
    let output = scrape(
        &base,
        json!({
            "url": "{{.base}}/queues.yaml",
            "env": [{"name": "base", "value": base}],
        }),
    )
    .await
    .expect("scrape");
    assert_eq!(output.items.len(), 2);

    let error = scrape(&base, json!({"url": base, "ntlm": true}))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ScrapeError::Spec {
            field: "ntlm".into(),
            message: "not supported by this version of http scrapers".into()
        }
    );
}

#[tokio::test]
async fn a_refused_connection_is_an_error_naming_the_request() {
    let error = scrape("", json!({"url": "http://127.0.0.1:9/nothing"}))
        .await
        .unwrap_err();
    let ScrapeError::Source(message) = error else {
        panic!("{error:?}")
    };
    assert!(
        message.starts_with("GET http://127.0.0.1:9/nothing: "),
        "{message}"
    );
}
