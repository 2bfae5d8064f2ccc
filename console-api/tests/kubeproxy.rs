//! The kubeconfig download and `/kubeproxy` against an in-process fake API
//! server, for what only it can show: which headers reach the cluster, and
//! that refused requests reach it not at all. Real HTTP and PostgreSQL; what
//! the cluster does with proxied requests is tested against a real
//! kube-apiserver in kubeproxy_cluster.rs.

mod common;

use common::Api as Console;
use quarterdeck_api::{AppState, AuthSettings, KubeProxy, KubeProxySettings};
use quarterdeck_fake_apiserver::FakeApiServer;
use reqwest::StatusCode;
use sqlx::PgPool;

struct Setup {
    api: Console,
    cluster: FakeApiServer,
}

async fn setup(pool: PgPool) -> Setup {
    let cluster = FakeApiServer::start().await;
    for crd in quarterdeck_crds::all() {
        cluster.register_crd(&crd);
    }
    let proxy = KubeProxy::new(cluster.client(), &KubeProxySettings::default()).unwrap();
    let api = Console::start_state(pool.clone(), |url| {
        let settings = AuthSettings {
            public_url: url.to_owned(),
            ..AuthSettings::default()
        };
        AppState::new(pool, settings).with_kube_proxy(proxy)
    })
    .await;
    Setup { api, cluster }
}

/// Downloads a kubeconfig as this signed-in browser.
async fn download(api: &Console, browser: &reqwest::Client) -> String {
    let res = browser
        .post(api.at("/api/kubeconfig"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-type"], "application/yaml");
    assert_eq!(
        res.headers()["content-disposition"],
        "attachment; filename=\"quarterdeck-kubeconfig.yaml\""
    );
    res.text().await.unwrap()
}

async fn token_for(pool: &PgPool, person: uuid::Uuid) -> String {
    quarterdeck_store::tokens::create(pool, person, "scripts", None, false, None)
        .await
        .unwrap()
        .token
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn refusals_are_kubernetes_statuses(pool: PgPool) {
    let Setup {
        api,
        cluster: _cluster,
    } = setup(pool.clone()).await;
    let guest = api.person("guest@example.com", &["guest"], "pw").await;
    let admin = api.person("admin@example.com", &["admin"], "pw").await;
    let http = reqwest::Client::new();
    let url = api.at("/kubeproxy/api/v1/namespaces");

    let res = http.get(&url).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["kind"], "Status");
    assert_eq!(body["reason"], "Unauthorized");

    // Access scopes cannot narrow the cluster, so guests have none of it.
    let res = http
        .get(&url)
        .bearer_auth(token_for(&pool, guest).await)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["reason"], "Forbidden");

    // Tokens cannot mint the tokens a kubeconfig carries.
    let res = http
        .post(api.at("/api/kubeconfig"))
        .bearer_auth(token_for(&pool, admin).await)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn without_a_cluster_the_proxy_answers_503(pool: PgPool) {
    let api = Console::start(pool.clone()).await;
    let admin = api.person("admin@example.com", &["admin"], "pw").await;
    let res = reqwest::Client::new()
        .get(api.at("/kubeproxy/api"))
        .bearer_auth(token_for(&pool, admin).await)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["kind"], "Status");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_kubeconfig_is_issued_by_post_only_with_an_expiring_token(pool: PgPool) {
    let Setup {
        api,
        cluster: _cluster,
    } = setup(pool.clone()).await;
    api.person("admin@example.com", &["admin"], "pw-admin-1")
        .await;
    let browser = api.signed_in("admin@example.com", "pw-admin-1").await;
    let res = browser.get(api.at("/api/kubeconfig")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(res.headers()["allow"], "POST");
    let body: serde_json::Value = res.json().await.unwrap();
    assert!(body["message"].as_str().unwrap().contains("POST"), "{body}");
    let issued = || async {
        sqlx::query_scalar::<_, f64>(
            "SELECT extract(epoch FROM expires_at - now())::float8 FROM access_tokens WHERE name LIKE 'kubeconfig %'",
        )
        .fetch_all(&pool)
        .await
        .unwrap()
    };
    assert!(issued().await.is_empty(), "a GET mints nothing");

    download(&api, &browser).await;
    let lifetimes = issued().await;
    let ninety_days = 90.0 * 24.0 * 3600.0;
    assert_eq!(lifetimes.len(), 1);
    assert!(
        (lifetimes[0] - ninety_days).abs() < 3600.0,
        "expires in {} s",
        lifetimes[0]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn hop_by_hop_and_authenticating_proxy_headers_are_not_forwarded(pool: PgPool) {
    let Setup { api, cluster } = setup(pool.clone()).await;
    let admin = api.person("admin@example.com", &["admin"], "pw").await;
    let res = reqwest::Client::new()
        .get(api.at("/kubeproxy/api/v1/namespaces"))
        .bearer_auth(token_for(&pool, admin).await)
        .header("impersonate-user", "system:admin")
        .header("impersonate-group", "system:masters")
        .header("x-remote-user", "system:admin")
        .header("x-remote-group", "system:masters")
        .header("x-remote-extra-scopes", "everything")
        .header("connection", "x-private-hop")
        .header("x-private-hop", "for the next hop only")
        .header("keep-alive", "timeout=5")
        .header("x-kept", "yes")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let received = cluster
        .requests()
        .into_iter()
        .find(|r| r.path == "/api/v1/namespaces")
        .expect("the request reached the cluster");
    assert_eq!(
        received.authorization, None,
        "the caller's token never reaches the cluster"
    );
    for dropped in [
        "impersonate-group",
        "x-remote-user",
        "x-remote-group",
        "x-remote-extra-scopes",
        "x-private-hop",
        "keep-alive",
    ] {
        assert_eq!(
            received.header(dropped),
            None,
            "{dropped}: {:?}",
            received.headers
        );
    }
    assert_eq!(received.header("x-kept"), Some("yes"));
    assert_eq!(
        received.header("impersonate-user"),
        Some("quarterdeck-writer")
    );
}

/// Sends one request exactly as written (an HTTP client would clean the path).
async fn raw_get(api: &Console, path: &str, token: &str) -> (u16, serde_json::Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let host = api.url.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(host).await.unwrap();
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let code = response[9..12].parse().unwrap();
    let body = response.split("\r\n\r\n").nth(1).unwrap_or_default();
    let body = body.lines().find(|l| l.starts_with('{')).unwrap_or("null");
    (code, serde_json::from_str(body).unwrap_or_default())
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn dot_segments_and_encoded_slashes_are_refused(pool: PgPool) {
    let Setup { api, cluster } = setup(pool.clone()).await;
    let admin = api.person("admin@example.com", &["admin"], "pw").await;
    let token = token_for(&pool, admin).await;
    for path in [
        "/kubeproxy/api/v1/namespaces/default/../../../apis",
        "/kubeproxy/api/v1/./namespaces",
        "/kubeproxy/api/v1/namespaces/%2e%2e/%2E%2E/apis",
        "/kubeproxy/api/v1/namespaces/default%2F..%2Fkube-system/secrets",
    ] {
        let (code, body) = raw_get(&api, path, &token).await;
        assert_eq!(code, 400, "{path}: {body}");
        assert_eq!(body["kind"], "Status", "{path}");
        assert_eq!(body["reason"], "BadRequest", "{path}");
    }
    assert!(
        cluster
            .requests()
            .iter()
            .all(|r| r.impersonate_user.is_none()),
        "nothing was forwarded"
    );
    let (code, _) = raw_get(&api, "/kubeproxy/api/v1/namespaces", &token).await;
    assert_eq!(code, 200);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn callers_limited_by_access_scopes_get_no_cluster_access(pool: PgPool) {
    let Setup { api, cluster } = setup(pool.clone()).await;
    let editor = api.person("editor@example.com", &["editor"], "pw").await;
    let token = token_for(&pool, editor).await;
    let url = api.at("/kubeproxy/api/v1/namespaces");
    let get = || reqwest::Client::new().get(&url).bearer_auth(&token).send();
    assert_eq!(get().await.unwrap().status(), StatusCode::OK);

    let team = api.team("payments", &[editor]).await;
    let payments = serde_json::json!([{"tags": {"team": "payments"}}]);
    api.access_scope(
        "payments-only",
        common::Subject::Team(team),
        &["canary"],
        payments,
    )
    .await;
    let before = cluster.requests().len();
    let res = get().await.unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["kind"], "Status");
    assert_eq!(body["reason"], "Forbidden");
    assert_eq!(
        cluster.requests().len(),
        before,
        "nothing reached the cluster"
    );
}
