//! `kubernetes` checks against the in-process fake API server.

mod common;

use common::{assert_failed_with, assert_passed, context};
use kube::api::{Api, ApiResource, DynamicObject, PostParams};
use kube::core::GroupVersionKind;
use quarterdeck_checks::{Outcome, StaticLookup};
use quarterdeck_fake_apiserver::{FakeApiServer, ResourceType};
use serde_json::{Value, json};

async fn create(server: &FakeApiServer, gvk: GroupVersionKind, plural: &str, object: Value) {
    let resource = ApiResource::from_gvk_with_plural(&gvk, plural);
    let namespace = object["metadata"]["namespace"].as_str().map(str::to_owned);
    let api: Api<DynamicObject> = match &namespace {
        Some(ns) => Api::namespaced_with(server.client(), ns, &resource),
        None => Api::all_with(server.client(), &resource),
    };
    let object: DynamicObject = serde_json::from_value(object).unwrap();
    api.create(&PostParams::default(), &object).await.unwrap();
}

fn pod(namespace: &str, name: &str, app: &str, ready: bool) -> Value {
    let mut container = json!({"name": "app", "ready": ready, "restartCount": 0});
    if !ready {
        container["state"] = json!({"waiting": {"reason": "CrashLoopBackOff"}});
    }
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app": app}},
        "spec": {"containers": [{"name": "app", "image": "app:1"}]},
        "status": {"phase": "Running",
            "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }}],
            "containerStatuses": [container]}
    })
}

fn deployment(name: &str, available: bool) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": name}}, "template": {}},
        "status": {"conditions": [{"type": "Available",
            "status": if available { "True" } else { "False" },
            "reason": if available { "MinimumReplicasAvailable" } else { "MinimumReplicasUnavailable" }}]}
    })
}

/// default: web-1 (ready), web-2 (crash looping), deployments api (available) and
/// broken (not); other: db-1 (ready). Namespaces labelled env=prod / env=dev.
async fn cluster() -> FakeApiServer {
    let server = FakeApiServer::start().await;
    server.register(ResourceType::namespaced("", "v1", "Pod", "pods"));
    server.register(ResourceType::namespaced(
        "apps",
        "v1",
        "Deployment",
        "deployments",
    ));
    let core = |kind: &str| GroupVersionKind::gvk("", "v1", kind);
    for (name, env) in [("default", "prod"), ("other", "dev")] {
        create(
            &server,
            core("Namespace"),
            "namespaces",
            json!({"apiVersion": "v1", "kind": "Namespace",
                   "metadata": {"name": name, "labels": {"env": env}}}),
        )
        .await;
    }
    create(
        &server,
        core("Pod"),
        "pods",
        pod("default", "web-1", "web", true),
    )
    .await;
    create(
        &server,
        core("Pod"),
        "pods",
        pod("default", "web-2", "web", false),
    )
    .await;
    create(
        &server,
        core("Pod"),
        "pods",
        pod("other", "db-1", "db", true),
    )
    .await;
    let apps = GroupVersionKind::gvk("apps", "v1", "Deployment");
    create(
        &server,
        apps.clone(),
        "deployments",
        deployment("api", true),
    )
    .await;
    create(&server, apps, "deployments", deployment("broken", false)).await;
    server
}

async fn check(server: &FakeApiServer, spec: Value) -> Outcome {
    let mut ctx = context(StaticLookup::new());
    ctx.kube = Some(server.client());
    quarterdeck_checks::run("kubernetes", &spec, &ctx).await
}

#[tokio::test]
async fn without_a_client_the_check_fails_clearly() {
    let outcome = common::run("kubernetes", json!({"name": "k", "kind": "Pod"})).await;
    assert_failed_with(&outcome, "need a Kubernetes client");
}

#[tokio::test]
async fn unhealthy_pods_are_listed() {
    let server = cluster().await;
    let outcome = check(
        &server,
        json!({"name": "k", "kind": "Pod", "namespaceSelector": {"name": "default"},
               "resource": {"labelSelector": "app=web"}}),
    )
    .await;
    assert_failed_with(
        &outcome,
        "1 of 2 Pod resources unhealthy: default/web-2: container app is not ready (CrashLoopBackOff)",
    );
    assert_eq!(outcome.details["count"], 2);
    assert_eq!(outcome.details["unhealthy"][0]["name"], "web-2");
    assert_eq!(outcome.details["results"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn healthy_selections_pass() {
    let server = cluster().await;
    let outcome = check(
        &server,
        json!({"name": "k", "kind": "Pod", "resource": {"name": "web-1"}}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["count"], 1);
    // All namespaces, ignoring the broken pod by glob.
    let outcome = check(
        &server,
        json!({"name": "k", "kind": "pod", "ignore": ["*-2"]}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["count"], 2);
    // Namespaces picked by label.
    let outcome = check(
        &server,
        json!({"name": "k", "kind": "Pod", "namespaceSelector": {"labelSelector": "env=dev"}}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["results"][0]["metadata"]["name"], "db-1");
}

#[tokio::test]
async fn deployments_need_available_conditions() {
    let server = cluster().await;
    let outcome = check(&server, json!({"name": "k", "kind": "Deployment"})).await;
    assert_failed_with(
        &outcome,
        "default/broken: Available is False (MinimumReplicasUnavailable)",
    );
    assert_eq!(outcome.details["apiVersion"], "apps/v1");
    let outcome = check(
        &server,
        json!({"name": "k", "kind": "Deployment", "apiVersion": "apps/v1", "resource": {"name": "api"}}),
    )
    .await;
    assert_passed(&outcome);
}

#[tokio::test]
async fn api_version_pins_the_group_and_version_of_the_kind() {
    let server = cluster().await;
    let outcome = check(
        &server,
        json!({"name": "k", "kind": "Deployment", "apiVersion": "apps/v2"}),
    )
    .await;
    assert_failed_with(&outcome, "finding Deployment in apps/v2");
    let outcome = check(
        &server,
        json!({"name": "k", "kind": "Deployment", "apiVersion": "extensions/v1beta1"}),
    )
    .await;
    assert_failed_with(&outcome, "finding Deployment in extensions/v1beta1");
}

#[tokio::test]
async fn health_checks_can_be_turned_off() {
    let server = cluster().await;
    let outcome = check(
        &server,
        json!({"name": "k", "kind": "Pod", "healthy": false, "ready": false,
               "test": {"expr": "size(results) == 3"}}),
    )
    .await;
    assert_passed(&outcome);
}

#[tokio::test]
async fn unknown_kinds_and_empty_results() {
    let server = cluster().await;
    let outcome = check(&server, json!({"name": "k", "kind": "Gizmo"})).await;
    assert_failed_with(&outcome, "the cluster serves no kind \"Gizmo\"");
    let outcome = check(
        &server,
        json!({"name": "k", "kind": "Pod", "resource": {"name": "nope"}}),
    )
    .await;
    assert_passed(&outcome);
    let outcome = check(
        &server,
        json!({"name": "k", "kind": "Pod", "resource": {"name": "nope"}, "markFailOnEmpty": true}),
    )
    .await;
    assert_failed_with(&outcome, "no Pod resources matched");
}

#[tokio::test]
async fn kube_lookup_reads_secrets_and_config_maps() {
    use quarterdeck_checks::{KubeLookup, Lookup};
    use quarterdeck_crds::common::{EnvVar, EnvVarSource, KeySelector};

    let server = FakeApiServer::start().await;
    let core = |kind: &str| GroupVersionKind::gvk("", "v1", kind);
    create(
        &server,
        core("Secret"),
        "secrets",
        json!({"apiVersion": "v1", "kind": "Secret",
               "metadata": {"name": "creds", "namespace": "default"},
               "data": {"token": "czNjcjN0LXRva2Vu"}}),
    )
    .await;
    create(
        &server,
        core("ConfigMap"),
        "configmaps",
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": "settings", "namespace": "default"},
               "data": {"region": "eu-west"}}),
    )
    .await;
    let key = |name: &str, key: &str| KeySelector {
        name: Some(name.into()),
        key: key.into(),
        optional: None,
    };
    let from = |source: EnvVarSource| EnvVar {
        value_from: Some(source),
        ..EnvVar::default()
    };
    let lookup = KubeLookup::new(server.client());
    let secret = from(EnvVarSource {
        secret_key_ref: Some(key("creds", "token")),
        ..EnvVarSource::default()
    });
    assert_eq!(
        lookup.env_var("default", &secret).await.unwrap(),
        "s3cr3t-token"
    );
    let config = from(EnvVarSource {
        config_map_key_ref: Some(key("settings", "region")),
        ..EnvVarSource::default()
    });
    assert_eq!(lookup.env_var("default", &config).await.unwrap(), "eu-west");
    let literal = EnvVar {
        value: Some("plain".into()),
        ..EnvVar::default()
    };
    assert_eq!(lookup.env_var("default", &literal).await.unwrap(), "plain");

    let missing_key = from(EnvVarSource {
        secret_key_ref: Some(key("creds", "nope")),
        ..EnvVarSource::default()
    });
    let error = lookup.env_var("default", &missing_key).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "secret default/creds has no key \"nope\""
    );
    let error = lookup.env_var("elsewhere", &secret).await.unwrap_err();
    assert_eq!(error.to_string(), "secret elsewhere/creds not found");
    let helm = from(EnvVarSource {
        helm_ref: Some(key("release", "a.b")),
        ..EnvVarSource::default()
    });
    assert!(
        lookup
            .env_var("default", &helm)
            .await
            .unwrap_err()
            .to_string()
            .contains("helmRef")
    );
    assert!(lookup.connection("default", "db").await.is_err());

    // Through a check: the secret reaches the script and is masked in the outcome.
    let mut ctx = context(StaticLookup::new());
    ctx.lookup = std::sync::Arc::new(lookup);
    let spec = json!({"name": "e", "script": "echo \"$TOKEN $REGION\"", "env": [
        {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "token"}}},
        {"name": "REGION", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "region"}}}]});
    let outcome = quarterdeck_checks::run("exec", &spec, &ctx).await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["stdout"], "*** eu-west\n");
}
