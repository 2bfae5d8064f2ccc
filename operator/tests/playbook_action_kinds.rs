//! The playbook action kinds beyond exec, http and sql, run through the
//! engine on real PostgreSQL: `notification` to the real SMTP test server and
//! a local webhook receiver, `prometheus` against the real Prometheus test
//! server, `catalog` into the catalog, and `github` / `azureDevopsPipeline`
//! against local servers replaying recorded conversations (GitHub and Azure
//! DevOps cannot run here). Needs `QD_SERVERS="smtp prometheus" hack/with-servers.sh`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::IntoResponse;
use axum::routing::post;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use quarterdeck_checks::{Connection, StaticLookup};
use quarterdeck_operator::engine::Sources;
use quarterdeck_operator::playbook::{Apis, Settings};
use quarterdeck_store::playbook_runs::{ActionStatus, RunAction, RunStatus};
use serde_json::{Value, json};
use sqlx::PgPool;
use tokio::sync::oneshot;
use uuid::Uuid;

#[allow(dead_code)] // the playbook tests' helpers; this test uses part of them
#[path = "support/playbooks.rs"]
mod support;

use support::{engine_with, finished, run_of, settings, statuses};

const WITHIN: Duration = Duration::from_secs(60);

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is unset: run under QD_SERVERS=\"smtp prometheus\" hack/with-servers.sh")
    })
}

/// An engine on `pool` with `lookup` and `apis`, until the sender is dropped.
fn engine(pool: &PgPool, lookup: StaticLookup, apis: Apis) -> oneshot::Sender<()> {
    engine_with(
        pool,
        Sources {
            lookup: Arc::new(lookup),
            kube: None,
        },
        Settings {
            apis,
            ..settings("actions", Duration::from_secs(5))
        },
    )
}

/// The error of the one action of a new playbook from `source`, which fails.
async fn error_of(pool: &PgPool, source: &str, action: Value) -> String {
    let id = run_of(pool, source, json!({"actions": [action]}), json!({})).await;
    let (run, actions) = finished(pool, id, WITHIN).await;
    assert_eq!(run.status, RunStatus::Failed, "{actions:?}");
    assert_eq!(
        statuses(&actions),
        [(actions[0].name.clone(), ActionStatus::Failed)]
    );
    actions[0].error.clone().unwrap_or_default()
}

/// The actions of a completed run of a new Kubernetes playbook with `spec`.
async fn completed(pool: &PgPool, spec: &Value, params: Value) -> Vec<RunAction> {
    let id = run_of(pool, "KubernetesCRD", spec.clone(), params).await;
    let (run, actions) = finished(pool, id, WITHIN).await;
    assert_eq!(
        run.status,
        RunStatus::Completed,
        "{:?} {actions:?}",
        run.error
    );
    actions
}

/// Serves `router` on a free loopback port; its base URL.
async fn serve(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{address}")
}

/// The messages the SMTP test server received whose subject is `subject`.
async fn mails(subject: &str, count: usize) -> Vec<Value> {
    let dir = env("QD_TEST_SMTP_DIR");
    let deadline = Instant::now() + WITHIN;
    loop {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                let record: Value =
                    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                let data = record["data"].as_str().unwrap_or_default();
                if data.contains(&format!("Subject: {subject}\r\n"))
                    || data.contains(&format!("Subject: {subject}\n"))
                {
                    found.push(record);
                }
            }
        }
        if found.len() >= count {
            return found;
        }
        assert!(Instant::now() < deadline, "no mail with subject {subject}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The decoded base64 parts of a message: its body, then its attachments.
fn parts(record: &Value) -> Vec<String> {
    let data = record["data"].as_str().unwrap().replace("\r\n", "\n");
    data.split("Content-Transfer-Encoding: base64\n\n")
        .skip(1)
        .map(|part| {
            let encoded: String = part.lines().take_while(|l| !l.starts_with("--")).collect();
            String::from_utf8(STANDARD.decode(encoded).unwrap()).unwrap()
        })
        .collect()
}

/// What the webhook receiver got: each request's path name and JSON body.
type Received = Arc<Mutex<Vec<(String, Value)>>>;

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn notifications_reach_the_smtp_server_and_a_webhook(pool: PgPool) {
    let received = Received::default();
    let hook = serve(
        Router::new()
            .route(
                "/hook/{name}",
                post(
                    |State(seen): State<Received>,
                     Path(name): Path<String>,
                     axum::Json(body): axum::Json<Value>| async move {
                        seen.lock().unwrap().push((name, body));
                        StatusCode::NO_CONTENT
                    },
                ),
            )
            .with_state(received.clone()),
    )
    .await;
    let port = env("QD_TEST_SMTP_PORT");
    let mail = Connection {
        kind: "email".into(),
        username: Some(env("QD_TEST_SMTP_USER")),
        password: Some(env("QD_TEST_SMTP_PASSWORD")),
        // The test server's certificate is self-signed.
        insecure_tls: true,
        properties: [
            ("host", env("QD_TEST_SMTP_HOST")),
            ("port", port.clone()),
            ("from", "playbooks@quarterdeck.test".into()),
            ("to", "oncall@quarterdeck.test".into()),
            ("encryption", "ExplicitTLS".into()),
            ("auth", "Plain".into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect(),
        ..Connection::default()
    };
    let lookup = StaticLookup::new()
        .with_connection("default", "mail", mail)
        .with_connection(
            "default",
            "db",
            Connection {
                kind: "postgres".into(),
                url: Some("postgres://127.0.0.1/db".into()),
                ..Connection::default()
            },
        );
    let _engine = engine(&pool, lookup, Apis::default());
    let tag = Uuid::new_v4().simple().to_string();
    let spec = json!({"actions": [
        {"name": "byConnection", "notification": {
            "connection": "connection://default/mail",
            "title": "Restarted {{.params.app}} {{.params.tag}}",
            "message": "{{.params.app}} was restarted by a playbook.",
            "properties": {"to": "sre@quarterdeck.test, dev@quarterdeck.test"},
            "attachments": [{"filename": "restart-{{.params.app}}.json", "content": "{\"app\": \"{{.params.app}}\"}",
                             "contentType": "application/json"}]}},
        {"name": "bySmtpUrl", "notification": {
            "url": format!("smtp://127.0.0.1:{port}/?from=bot@quarterdeck.test&toAddresses=audit@quarterdeck.test&encryption=None&auth=None"),
            "title": "Audit {{.params.tag}}",
            "message": "{{.actions.byConnection.result.channel}} sent"}},
        {"name": "byWebhookUrl", "notification": {
            "url": format!("generic+{hook}/hook/deploys?messagekey=text"),
            "title": "Deployed",
            "message": "{{.params.app}} is live"}}
    ]});
    let actions = completed(&pool, &spec, json!({"app": "web", "tag": tag})).await;

    let by_connection = actions[0].result.clone().unwrap();
    assert_eq!(by_connection["channel"], "email");
    assert_eq!(by_connection["via"], "default/mail");
    assert_eq!(by_connection["title"], format!("Restarted web {tag}"));
    assert!(
        by_connection["answer"]
            .as_str()
            .unwrap()
            .contains("accepted the message")
    );
    let sent = mails(&format!("Restarted web {tag}"), 1).await;
    assert_eq!(sent[0]["login"], "quarterdeck");
    assert_eq!(sent[0]["tls"], true);
    assert_eq!(sent[0]["mailFrom"], "playbooks@quarterdeck.test");
    assert_eq!(
        sent[0]["rcptTos"],
        json!(["sre@quarterdeck.test", "dev@quarterdeck.test"])
    );
    assert_eq!(
        parts(&sent[0]),
        ["web was restarted by a playbook.", "{\"app\": \"web\"}"]
    );
    let data = sent[0]["data"].as_str().unwrap();
    assert!(data.contains("Content-Type: application/json; name=\"restart-web.json\""));
    assert!(data.contains("Content-Disposition: attachment; filename=\"restart-web.json\""));
    assert_eq!(by_connection["attachments"], json!(["restart-web.json"]));

    let audit = mails(&format!("Audit {tag}"), 1).await;
    assert_eq!(audit[0]["rcptTos"], json!(["audit@quarterdeck.test"]));
    assert_eq!(audit[0]["login"], Value::Null);
    assert_eq!(parts(&audit[0]), ["email sent"]);
    assert_eq!(
        actions[1].result.clone().unwrap()["via"],
        "smtp://127.0.0.1"
    );

    assert_eq!(
        received.lock().unwrap().clone(),
        [(
            "deploys".to_owned(),
            json!({"text": "web is live", "title": "Deployed"})
        )]
    );
    assert_eq!(
        actions[2].result.clone().unwrap()["channel"],
        "generic_webhook"
    );

    // A console playbook cannot send a connection's credentials elsewhere.
    let redirect = json!({"name": "n", "notification": {
        "connection": "mail", "title": "t", "message": "m",
        "properties": {"host": "mail.elsewhere.test"}}});
    assert_eq!(
        error_of(&pool, "UI", redirect).await,
        "notification.properties.host: a playbook from the console cannot send a connection's credentials to another endpoint"
    );
    // Not a notification channel, an unsupported URL, attachments.
    for (notification, error) in [
        (
            json!({"connection": "db", "title": "t", "message": "m"}),
            "notification.connection: default/db is a postgres connection, not a notification channel",
        ),
        (
            json!({"url": "slack://token@channel", "title": "t", "message": "m"}),
            "notification.url: notification URLs of scheme slack:// are not supported yet (smtp, generic, http and https are); use a connection",
        ),
        (
            json!({"url": "http://127.0.0.1:9/hook", "title": "t", "message": "m",
                   "attachments": [{"filename": "a.txt", "content": "a"}]}),
            "notification: generic_webhook connections do not send attachments; only e-mail does",
        ),
    ] {
        let action = json!({"name": "n", "notification": notification});
        assert_eq!(error_of(&pool, "KubernetesCRD", action).await, error);
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn prometheus_instant_and_range_queries_feed_later_actions(pool: PgPool) {
    let prometheus = Connection {
        kind: "prometheus".into(),
        url: Some(env("QD_TEST_PROMETHEUS_URL")),
        username: Some(env("QD_TEST_PROMETHEUS_USERNAME")),
        password: Some(env("QD_TEST_PROMETHEUS_PASSWORD")),
        ..Connection::default()
    };
    let lookup = StaticLookup::new().with_connection("default", "prometheus", prometheus);
    let _engine = engine(&pool, lookup, Apis::default());
    let spec = json!({"actions": [
        {"name": "instant", "prometheus": {"connection": "connection://default/prometheus",
                                           "query": "label_replace(vector({{.params.n}}), \"job\", \"web\", \"\", \"\")"}},
        {"name": "range", "prometheus": {"connection": "prometheus", "query": "vector(1)",
                                         "range": {"start": "5m", "step": "1m"}}},
        {"name": "use", "exec": {"script": "echo {{ (index .actions.instant.result.rows 0).value }} {{ .actions.range.result.count }}"}}
    ]});
    let actions = completed(&pool, &spec, json!({"n": 42})).await;
    let instant = actions[0].result.clone().unwrap();
    assert_eq!(instant["resultType"], "vector");
    assert_eq!(instant["count"], 1);
    assert_eq!(instant["rows"][0]["job"], "web");
    assert_eq!(instant["rows"][0]["value"], 42.0);
    assert!(instant["rows"][0]["time"].as_str().unwrap().ends_with('Z'));
    let range = actions[1].result.clone().unwrap();
    assert_eq!(range["resultType"], "matrix");
    assert_eq!(range["count"], 6, "{range}");
    assert_eq!(range["range"]["step"], 60);
    assert!(
        range["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["value"] == 1.0)
    );
    assert_eq!(actions[2].result.clone().unwrap()["stdout"], "42 6\n");

    // Prometheus's own error; a console playbook's connection stays on its endpoint.
    for (query, error) in [
        (
            json!({"connection": "prometheus", "query": "vector("}),
            "parse error",
        ),
        (
            json!({"connection": "prometheus", "url": "http://127.0.0.2:9/", "query": "up"}),
            "connection \"prometheus\" is used with another endpoint: its credentials go only to its own endpoint unless an admin saves the check",
        ),
    ] {
        let got = error_of(&pool, "UI", json!({"name": "q", "prometheus": query})).await;
        assert!(
            got.starts_with("prometheus: ") && got.contains(error),
            "{got}"
        );
    }
}

/// One request and its answer in a recorded conversation.
#[derive(Clone)]
struct Exchange {
    method: String,
    path: String,
    headers: serde_json::Map<String, Value>,
    body: Value,
    status: u16,
    answer: Value,
}

/// The recorded exchanges, and what did not match them.
type Replay = (Arc<Vec<Exchange>>, Arc<Mutex<Vec<String>>>);

/// A local server replaying the recorded conversation `file`: each request
/// must match a recorded one (method, path and query, the recorded headers,
/// the JSON body) and gets its recorded answer; mismatches are listed.
async fn replay(file: &str) -> (String, Arc<Mutex<Vec<String>>>) {
    let path = format!("{}/tests/recorded/{file}", env!("CARGO_MANIFEST_DIR"));
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let exchanges: Vec<Exchange> = recorded["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| Exchange {
            method: e["request"]["method"].as_str().unwrap().into(),
            path: e["request"]["path"].as_str().unwrap().into(),
            headers: e["request"]["headers"].as_object().unwrap().clone(),
            body: e["request"]["body"].clone(),
            status: e["response"]["status"].as_u64().unwrap() as u16,
            answer: e["response"]["body"].clone(),
        })
        .collect();
    let problems = Arc::new(Mutex::new(Vec::new()));
    let state = (Arc::new(exchanges), problems.clone());
    let router = Router::new()
        .fallback(
            |State((exchanges, problems)): State<Replay>,
             method: Method,
             uri: Uri,
             headers: HeaderMap,
             body: Bytes| async move {
                let target = uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
                let Some(exchange) = exchanges
                    .iter()
                    .find(|e| e.method == method.as_str() && e.path == target)
                else {
                    problems
                        .lock()
                        .unwrap()
                        .push(format!("unrecorded request {method} {target}"));
                    return (StatusCode::NOT_IMPLEMENTED, String::new()).into_response();
                };
                for (name, value) in &exchange.headers {
                    let got = headers.get(name).and_then(|v| v.to_str().ok());
                    if got != value.as_str() {
                        problems
                            .lock()
                            .unwrap()
                            .push(format!("{target}: header {name} is {got:?}"));
                    }
                }
                let sent: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                if sent != exchange.body {
                    problems
                        .lock()
                        .unwrap()
                        .push(format!("{target}: body {sent}"));
                }
                let status = StatusCode::from_u16(exchange.status).unwrap();
                match &exchange.answer {
                    Value::Null => status.into_response(),
                    answer => (status, axum::Json(answer.clone())).into_response(),
                }
            },
        )
        .with_state(state);
    (serve(router).await, problems)
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn github_workflow_dispatch_against_a_recorded_github_api(pool: PgPool) {
    let (api, problems) = replay("github_workflow_dispatch.json").await;
    let lookup = StaticLookup::new().with_secret(
        "default",
        "github",
        "token",
        "ghp_recordedToken0123456789",
    );
    let apis = Apis {
        github: api,
        ..Apis::default()
    };
    let _engine = engine(&pool, lookup, apis);
    let token = json!({"valueFrom": {"secretKeyRef": {"name": "github", "key": "token"}}});
    let spec = json!({"actions": [{"name": "dispatch", "github": {
        "repo": "ops", "username": "acme", "token": token,
        "workflows": [{"id": "deploy.yaml", "ref": "release-{{.params.version}}",
                       "input": "{\"environment\": \"{{.params.env}}\", \"replicas\": \"3\"}"}]}}]});
    let actions = completed(&pool, &spec, json!({"version": "1.2", "env": "staging"})).await;
    assert_eq!(
        actions[0].result,
        Some(
            json!({"repo": "acme/ops", "workflows": [{"id": "deploy.yaml", "ref": "release-1.2", "code": 204}]})
        )
    );

    let refused = json!({"name": "dispatch", "github": {
        "repo": "ops", "username": "acme", "token": token,
        "workflows": [{"id": "1234567", "input": "{\"color\": \"blue\"}"}]}});
    assert_eq!(
        error_of(&pool, "KubernetesCRD", refused).await,
        "github.workflows[0]: dispatching 1234567: the API answered 422: Unexpected inputs provided: [\"color\"]"
    );
    assert_eq!(problems.lock().unwrap().clone(), Vec::<String>::new());
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn azure_devops_pipeline_run_against_a_recorded_azure_devops_api(pool: PgPool) {
    let (api, problems) = replay("azure_devops_pipeline_run.json").await;
    let lookup = StaticLookup::new().with_secret("default", "azure", "pat", "azdopsRecordedPat");
    let apis = Apis {
        azure_devops: api,
        ..Apis::default()
    };
    let _engine = engine(&pool, lookup, apis);
    let token = json!({"valueFrom": {"secretKeyRef": {"name": "azure", "key": "pat"}}});
    let spec = json!({"actions": [{"name": "pipeline", "azureDevopsPipeline": {
        "org": "fabrikam", "project": "fabrikam-fiber", "token": token,
        "pipeline": {"id": "4", "version": "2"},
        "parameters": {"resources": {"repositories": {"self": {"refName": "refs/heads/release"}}},
                       "templateParameters": {"environment": "{{.params.env}}"}}}}]});
    let actions = completed(&pool, &spec, json!({"env": "staging"})).await;
    let result = actions[0].result.clone().unwrap();
    assert_eq!(result["code"], 200);
    assert_eq!(result["run"]["id"], 42);
    assert_eq!(result["run"]["state"], "inProgress");
    assert_eq!(
        result["run"]["url"],
        "https://dev.azure.com/fabrikam/6e5bbd5d-6c3b-4a4f-a8bb-4c7a2f3b0c1d/_build/results?buildId=42"
    );

    let missing = json!({"name": "pipeline", "azureDevopsPipeline": {
        "org": "fabrikam", "project": "fabrikam-fiber", "token": token, "pipeline": {"id": "99"}}});
    assert_eq!(
        error_of(&pool, "KubernetesCRD", missing).await,
        "azureDevopsPipeline: running pipeline 99: the API answered 404: Pipeline with id 99 not found."
    );
    assert_eq!(problems.lock().unwrap().clone(), Vec::<String>::new());
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn catalog_writes_an_item_of_the_scraper_that_the_catalog_shows(pool: PgPool) {
    let scraper: Uuid = sqlx::query_scalar(
        "INSERT INTO config_scrapers (name, namespace, spec) VALUES ('audits', 'security', '{}') RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let _engine = engine(&pool, StaticLookup::new(), Apis::default());
    let spec = json!({"actions": [
        {"name": "audit", "exec": {"script": "echo '{\"findings\": {{.params.findings}}}'"}},
        {"name": "save", "catalog": {
            "scraper": "security/audits", "name": "Security audit {{.params.cluster}}",
            "type": "SecurityAudit::Report", "config_class": "Report",
            "config": "{{ .actions.audit.result.stdout }}",
            "health": "{{ if eq .params.findings \"0\" }}healthy{{ else }}warning{{ end }}",
            "status": "Reviewed", "tags": {"cluster": "{{.params.cluster}}"}, "labels": {"team": "sec"}}}
    ]});
    let actions = completed(&pool, &spec, json!({"cluster": "prod", "findings": "2"})).await;
    let saved = actions[1].result.clone().unwrap();
    assert_eq!(saved["created"], true);
    assert_eq!(saved["scraper"], json!(scraper));
    let id: Uuid = serde_json::from_value(saved["id"].clone()).unwrap();

    let actions = completed(&pool, &spec, json!({"cluster": "prod", "findings": "0"})).await;
    let saved = actions[1].result.clone().unwrap();
    assert_eq!(
        (saved["created"].clone(), saved["changed"].clone()),
        (json!(false), json!(true))
    );
    assert_eq!(saved["id"], json!(id));

    let (name, kind, class, health, status, tags, labels, scraper_id): (
        String, String, String, String, String, Value, Value, Uuid,
    ) = sqlx::query_as(
        "SELECT name, type, config_class, health, status, tags, labels, scraper_id FROM configs WHERE id = $1",
    )
    .bind(id)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(
        (
            name.as_str(),
            kind.as_str(),
            class.as_str(),
            health.as_str(),
            status.as_str()
        ),
        (
            "Security audit prod",
            "SecurityAudit::Report",
            "Report",
            "healthy",
            "Reviewed"
        )
    );
    assert_eq!(
        (tags, labels, scraper_id),
        (json!({"cluster": "prod"}), json!({"team": "sec"}), scraper)
    );
    let (config, changes): (Value, i64) = sqlx::query_as(
        "SELECT config, (SELECT count(*) FROM config_changes WHERE config_id = $1 AND change_type = 'diff') \
         FROM config_items WHERE id = $1",
    )
    .bind(id)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(config, json!({"findings": 0}));
    assert_eq!(changes, 1, "the second write recorded its diff");

    let unknown = json!({"name": "save", "catalog": {"scraper": "nope", "name": "x", "type": "T"}});
    assert_eq!(
        error_of(&pool, "KubernetesCRD", unknown).await,
        "catalog.scraper: no scraper \"nope\""
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn logs_report_and_ai_fail_saying_why(pool: PgPool) {
    let _engine = engine(&pool, StaticLookup::new(), Apis::default());
    for (action, error) in [
        (
            json!({"name": "a", "logs": {"loki": {"query": "{app=\"web\"}"}}}),
            "logs actions are not supported yet: they read log backends (Loki, CloudWatch, OpenSearch, Kubernetes), and Quarterdeck has no log backends yet",
        ),
        (
            json!({"name": "a", "report": {}}),
            "action kind report is not supported yet",
        ),
        (
            json!({"name": "a", "ai": {"prompt": "why", "systemPrompt": "be brief"}}),
            "action kind ai is not supported yet",
        ),
    ] {
        assert_eq!(error_of(&pool, "KubernetesCRD", action).await, error);
    }
}

/// No SQL Server runs on this machine: this reaches the TDS client's
/// connection attempt (a closed port) and the console pinning, no further.
#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn sql_server_is_wired_up_to_the_connection_attempt(pool: PgPool) {
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let lookup = StaticLookup::new().with_connection(
        "default",
        "warehouse",
        Connection {
            kind: "sql_server".into(),
            url: Some(format!("sqlserver://127.0.0.1:{closed};database=sales")),
            username: Some("sa".into()),
            password: Some("secret".into()),
            ..Connection::default()
        },
    );
    let _engine = engine(&pool, lookup, Apis::default());
    for (source, sql, error) in [
        (
            "KubernetesCRD",
            json!({"connection": "warehouse", "query": "SELECT 1 AS one"}),
            format!("sql: connecting to 127.0.0.1:{closed}: "),
        ),
        (
            "UI",
            json!({"connection": "warehouse", "driver": "mssql", "url": "sqlserver://127.0.0.2:1433", "query": "SELECT 1"}),
            "sql.url: a playbook from the console cannot send a connection's credentials to another endpoint".to_owned(),
        ),
    ] {
        let got = error_of(&pool, source, json!({"name": "q", "sql": sql})).await;
        assert!(got.starts_with(&error), "{got}");
    }
}
