//! The kubeconfig download and `/kubeproxy` against an in-process fake API
//! server: real HTTP, real PostgreSQL, and kube-rs as the client (the way
//! kubectl uses a kubeconfig).

mod common;

use common::Api as Console;
use futures::{StreamExt, TryStreamExt};
use kube::api::{Api, ListParams, PostParams, WatchEvent, WatchParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use quarterdeck_api::{AppState, AuthSettings, KubeProxy, KubeProxySettings};
use quarterdeck_crds::Canary;
use quarterdeck_fake_apiserver::FakeApiServer;
use reqwest::StatusCode;
use serde_json::json;
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

fn canary(name: &str) -> Canary {
    serde_json::from_value(json!({
        "apiVersion": "quarterdeck.dev/v1", "kind": "Canary",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"schedule": "@every 1m", "http": [{"name": "home", "url": "http://127.0.0.1:9/"}]},
    }))
    .unwrap()
}

/// Downloads a kubeconfig as this signed-in browser.
async fn download(api: &Console, browser: &reqwest::Client) -> String {
    let res = browser.get(api.at("/api/kubeconfig")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-type"], "application/yaml");
    assert_eq!(
        res.headers()["content-disposition"],
        "attachment; filename=\"quarterdeck-kubeconfig.yaml\""
    );
    res.text().await.unwrap()
}

/// A kube client configured from a kubeconfig, as kubectl would be.
async fn kube_client(kubeconfig: &str) -> kube::Client {
    let kubeconfig = Kubeconfig::from_yaml(kubeconfig).unwrap();
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .unwrap();
    kube::Client::try_from(config).unwrap()
}

/// A kubeconfig like the downloaded one, for a token made directly.
fn kubeconfig_for(api: &Console, token: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Config\nclusters: [{{name: q, cluster: {{server: '{}/kubeproxy'}}}}]\n\
         users: [{{name: q, user: {{token: '{token}'}}}}]\n\
         contexts: [{{name: q, context: {{cluster: q, user: q}}}}]\ncurrent-context: q\n",
        api.url
    )
}

fn api_status(error: kube::Error) -> u16 {
    match error {
        kube::Error::Api(status) => status.code,
        other => panic!("expected an API error, got {other:?}"),
    }
}

async fn token_for(pool: &PgPool, person: uuid::Uuid) -> String {
    quarterdeck_store::tokens::create(pool, person, "scripts", None, false, None)
        .await
        .unwrap()
        .token
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_downloaded_kubeconfig_lists_and_creates_canaries_as_the_writer(pool: PgPool) {
    let Setup { api, cluster } = setup(pool).await;
    api.person("admin@example.com", &["admin"], "pw-admin-1")
        .await;
    Api::<Canary>::namespaced(cluster.client(), "default")
        .create(&PostParams::default(), &canary("existing"))
        .await
        .unwrap();

    let browser = api.signed_in("admin@example.com", "pw-admin-1").await;
    let kubeconfig = download(&api, &browser).await;
    assert!(kubeconfig.contains(&format!("server: {}/kubeproxy", api.url)));
    let client = kube_client(&kubeconfig).await;
    let canaries: Api<Canary> = Api::all(client.clone());
    let names: Vec<_> = canaries
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|c| c.metadata.name.unwrap_or_default())
        .collect();
    assert_eq!(names, ["existing"]);

    Api::<Canary>::namespaced(client, "default")
        .create(&PostParams::default(), &canary("made-through-the-proxy"))
        .await
        .unwrap();
    assert!(
        cluster
            .object(
                "quarterdeck.dev",
                "v1",
                "canaries",
                Some("default"),
                "made-through-the-proxy"
            )
            .is_some()
    );

    let proxied: Vec<_> = cluster
        .requests()
        .into_iter()
        .filter(|r| r.impersonate_user.is_some())
        .collect();
    assert_eq!(proxied.len(), 2, "{proxied:#?}");
    for request in proxied {
        assert_eq!(
            request.impersonate_user.as_deref(),
            Some("quarterdeck-writer")
        );
        assert_eq!(
            request.authorization, None,
            "the caller's token never reaches the cluster"
        );
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_viewer_reads_as_the_reader_and_cannot_write(pool: PgPool) {
    let Setup { api, cluster } = setup(pool.clone()).await;
    let viewer = api
        .person("viewer@example.com", &["viewer"], "pw-viewer-1")
        .await;
    let token = token_for(&pool, viewer).await;
    let client = kube_client(&kubeconfig_for(&api, &token)).await;
    let canaries: Api<Canary> = Api::namespaced(client, "default");
    assert!(canaries.list(&ListParams::default()).await.is_ok());
    let refused = canaries
        .create(&PostParams::default(), &canary("nope"))
        .await
        .unwrap_err();
    assert_eq!(api_status(refused), 403);
    assert!(
        cluster
            .object("quarterdeck.dev", "v1", "canaries", Some("default"), "nope")
            .is_none()
    );

    // An identity of the caller's choosing is dropped.
    let res = reqwest::Client::new()
        .get(api.at("/kubeproxy/apis/quarterdeck.dev/v1/canaries"))
        .bearer_auth(&token)
        .header("Impersonate-User", "system:admin")
        .header("Impersonate-Group", "system:masters")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let seen: Vec<_> = cluster
        .requests()
        .into_iter()
        .filter_map(|r| r.impersonate_user)
        .collect();
    assert!(seen.iter().all(|u| u == "quarterdeck-reader"), "{seen:?}");

    // A viewer may use the cluster but not mint a kubeconfig.
    let browser = api.signed_in("viewer@example.com", "pw-viewer-1").await;
    let res = browser.get(api.at("/api/kubeconfig")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_revoked_token_gets_401(pool: PgPool) {
    let Setup {
        api,
        cluster: _cluster,
    } = setup(pool).await;
    api.person("admin@example.com", &["admin"], "pw-admin-1")
        .await;
    let browser = api.signed_in("admin@example.com", "pw-admin-1").await;
    let client = kube_client(&download(&api, &browser).await).await;
    let canaries: Api<Canary> = Api::all(client);
    canaries.list(&ListParams::default()).await.unwrap();

    let tokens: serde_json::Value = browser
        .get(api.at("/api/auth/tokens"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let list = tokens["payload"].as_array().or(tokens.as_array()).unwrap();
    let issued = list
        .iter()
        .find(|t| t["name"].as_str().unwrap().starts_with("kubeconfig "))
        .unwrap();
    let res = browser
        .delete(api.at(&format!(
            "/api/auth/token/{}",
            issued["id"].as_str().unwrap()
        )))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success());

    let refused = canaries.list(&ListParams::default()).await.unwrap_err();
    assert_eq!(api_status(refused), 401);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn watches_stream_through_the_proxy(pool: PgPool) {
    let Setup { api, cluster } = setup(pool.clone()).await;
    let admin = api.person("admin@example.com", &["admin"], "pw").await;
    let token = token_for(&pool, admin).await;
    let client = kube_client(&kubeconfig_for(&api, &token)).await;
    let canaries: Api<Canary> = Api::namespaced(client, "default");
    let mut events = canaries
        .watch(&WatchParams::default().timeout(30), "0")
        .await
        .unwrap()
        .boxed();

    Api::<Canary>::namespaced(cluster.client(), "default")
        .create(&PostParams::default(), &canary("appeared"))
        .await
        .unwrap();
    let event = tokio::time::timeout(std::time::Duration::from_secs(10), events.try_next())
        .await
        .expect("an event within 10 s")
        .unwrap();
    match event {
        Some(WatchEvent::Added(c)) => assert_eq!(c.metadata.name.as_deref(), Some("appeared")),
        other => panic!("expected Added, got {other:?}"),
    }
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
        .get(api.at("/api/kubeconfig"))
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
