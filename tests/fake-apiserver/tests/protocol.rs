//! Protocol tests: real kube-rs clients and runtime helpers against the fake server.

use std::time::Duration;

use anyhow::{Context as _, Result, anyhow, bail, ensure};
use futures::StreamExt as _;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret};
use kube::{
    Api, CustomResource, CustomResourceExt as _, Resource as _, ResourceExt as _,
    api::{DeleteParams, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams},
    core::ObjectMeta,
    runtime::watcher,
};
use quarterdeck_fake_apiserver::{FakeApiServer, ResourceType};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// A tiny custom kind with a status subresource.
#[derive(CustomResource, Deserialize, Serialize, Clone, Debug, PartialEq, JsonSchema)]
#[kube(
    group = "test.quarterdeck.dev",
    version = "v1",
    kind = "Widget",
    namespaced,
    status = "WidgetStatus"
)]
pub struct WidgetSpec {
    pub size: i32,
}

#[derive(Deserialize, Serialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    pub observed_size: Option<i32>,
}

const GROUP: &str = "test.quarterdeck.dev";
const STEP: Duration = Duration::from_secs(10);

async fn server_with_widgets() -> FakeApiServer {
    let server = FakeApiServer::start().await;
    server.register_crd(&Widget::crd());
    server
}

fn widget(name: &str, size: i32) -> Widget {
    Widget::new(name, WidgetSpec { size })
}

fn config_map(name: &str, data: &[(&str, &str)]) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            labels: Some([("app".to_owned(), "demo".to_owned())].into()),
            ..ObjectMeta::default()
        },
        data: Some(
            data.iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        ),
        ..ConfigMap::default()
    }
}

fn api_code(result: Result<impl std::fmt::Debug, kube::Error>) -> Option<u16> {
    match result {
        Err(kube::Error::Api(status)) => Some(status.code),
        _ => None,
    }
}

async fn next<S, T>(stream: &mut S) -> Result<T>
where
    S: futures::Stream<Item = T> + Unpin,
{
    tokio::time::timeout(STEP, stream.next())
        .await
        .context("timed out waiting for the next stream item")?
        .ok_or_else(|| anyhow!("stream ended"))
}

#[tokio::test]
async fn config_map_crud_and_every_patch_kind() -> Result<()> {
    let server = FakeApiServer::start().await;
    let cms: Api<ConfigMap> = Api::default_namespaced(server.client());

    let created = cms
        .create(
            &PostParams::default(),
            &config_map("settings", &[("a", "1")]),
        )
        .await?;
    assert_eq!(created.namespace().as_deref(), Some("default"));
    assert!(created.uid().is_some());
    assert_eq!(created.meta().generation, Some(1));
    assert!(created.creation_timestamp().is_some());
    let rv0: u64 = created.resource_version().context("rv")?.parse()?;

    assert_eq!(
        api_code(
            cms.create(&PostParams::default(), &config_map("settings", &[]))
                .await
        ),
        Some(409)
    );

    let fetched = cms.get("settings").await?;
    assert_eq!(fetched, created);
    match cms.get("missing").await {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 404);
            assert_eq!(status.reason, "NotFound");
            assert_eq!(
                status.details.as_ref().map(|d| d.name.as_str()),
                Some("missing")
            );
        }
        other => bail!("expected 404, got {other:?}"),
    }
    assert!(cms.get_opt("missing").await?.is_none());

    cms.create(&PostParams::default(), &config_map("other", &[]))
        .await?;
    let mut unlabelled = config_map("plain", &[]);
    unlabelled.metadata.labels = None;
    cms.create(&PostParams::default(), &unlabelled).await?;
    let list = cms.list(&ListParams::default().labels("app=demo")).await?;
    let names: Vec<_> = list.iter().map(|c| c.name_any()).collect();
    assert_eq!(names, ["other", "settings"]);
    assert!(list.metadata.resource_version.is_some());
    let list = cms.list(&ListParams::default().labels("!app")).await?;
    assert_eq!(list.items.len(), 1);
    let list = cms
        .list(&ListParams::default().fields("metadata.name=other"))
        .await?;
    assert_eq!(list.items.len(), 1);
    let all: Api<ConfigMap> = Api::all(server.client());
    assert_eq!(all.list(&ListParams::default()).await?.items.len(), 3);
    assert_eq!(
        api_code(cms.list(&ListParams::default().labels("app in (")).await),
        Some(400)
    );

    // Replace: data changes bump generation and resourceVersion.
    let mut replaced = fetched.clone();
    replaced.data = Some([("a".to_owned(), "2".to_owned())].into());
    let replaced = cms
        .replace("settings", &PostParams::default(), &replaced)
        .await?;
    assert_eq!(replaced.meta().generation, Some(2));
    let rv1: u64 = replaced.resource_version().context("rv")?.parse()?;
    assert!(rv1 > rv0);

    let merged = cms
        .patch(
            "settings",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"b": "3"}, "metadata": {"annotations": {"x": "y"}}})),
        )
        .await?;
    assert_eq!(
        merged
            .data
            .as_ref()
            .and_then(|d| d.get("b"))
            .map(String::as_str),
        Some("3")
    );
    assert_eq!(merged.annotations().get("x").map(String::as_str), Some("y"));

    let json_patched = cms
        .patch(
            "settings",
            &PatchParams::default(),
            &Patch::Json::<()>(serde_json::from_value(json!([
                {"op": "test", "path": "/data/b", "value": "3"},
                {"op": "remove", "path": "/data/b"},
                {"op": "add", "path": "/metadata/finalizers", "value": ["example.com/keep"]},
            ]))?),
        )
        .await?;
    assert!(
        !json_patched
            .data
            .as_ref()
            .is_some_and(|d| d.contains_key("b"))
    );
    assert_eq!(json_patched.finalizers(), ["example.com/keep"]);

    let failed_test = cms
        .patch(
            "settings",
            &PatchParams::default(),
            &Patch::Json::<()>(serde_json::from_value(json!([
                {"op": "test", "path": "/data/a", "value": "nope"},
                {"op": "replace", "path": "/data/a", "value": "9"},
            ]))?),
        )
        .await;
    assert_eq!(api_code(failed_test), Some(422));

    let strategic = cms
        .patch(
            "settings",
            &PatchParams::default(),
            &Patch::Strategic(json!({"data": {"c": "4"}})),
        )
        .await?;
    assert_eq!(strategic.data.as_ref().map(|d| d.len()), Some(2));

    let applied = cms
        .patch(
            "settings",
            &PatchParams::apply("test-manager").force(),
            &Patch::Apply(json!({
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "settings", "labels": {"tier": "gold"}},
                "data": {"d": "5"},
            })),
        )
        .await?;
    assert_eq!(
        applied.labels().get("tier").map(String::as_str),
        Some("gold")
    );
    assert_eq!(
        applied
            .data
            .as_ref()
            .and_then(|d| d.get("d"))
            .map(String::as_str),
        Some("5")
    );

    // Server-side apply creates missing objects.
    let fresh = cms
        .patch(
            "applied",
            &PatchParams::apply("test-manager"),
            &Patch::Apply(json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "v"}})),
        )
        .await?;
    assert_eq!(fresh.meta().generation, Some(1));
    assert!(
        server
            .object("", "v1", "configmaps", Some("default"), "applied")
            .is_some()
    );

    // Patching a missing object (non-apply) is a 404.
    assert_eq!(
        api_code(
            cms.patch(
                "missing",
                &PatchParams::default(),
                &Patch::Merge(json!({"data": {}}))
            )
            .await
        ),
        Some(404)
    );

    // Delete with a finalizer only marks the object.
    let pending = cms.delete("settings", &DeleteParams::default()).await?;
    let marked = pending.left().context("object with deletionTimestamp")?;
    assert!(marked.meta().deletion_timestamp.is_some());
    assert!(cms.get_opt("settings").await?.is_some());
    // Adding finalizers while deleting is forbidden.
    assert_eq!(
        api_code(
            cms.patch(
                "settings",
                &PatchParams::default(),
                &Patch::Merge(
                    json!({"metadata": {"finalizers": ["example.com/keep", "x.io/new"]}})
                ),
            )
            .await
        ),
        Some(422)
    );
    // Removing the last finalizer completes the delete.
    cms.patch(
        "settings",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await?;
    assert!(cms.get_opt("settings").await?.is_none());

    // Plain delete of a built-in kind answers a Success status; a second delete is 404.
    let status = cms.delete("other", &DeleteParams::default()).await?;
    assert!(status.right().is_some_and(|s| s.is_success()));
    assert_eq!(
        api_code(cms.delete("other", &DeleteParams::default()).await),
        Some(404)
    );

    // The request log records method, path, query, content type and body.
    let requests = server.requests();
    let apply = requests
        .iter()
        .find(|r| r.content_type.as_deref() == Some("application/apply-patch+yaml"))
        .context("apply request recorded")?;
    assert_eq!(apply.method, "PATCH");
    assert_eq!(apply.path, "/api/v1/namespaces/default/configmaps/settings");
    assert_eq!(apply.query_param("fieldManager"), Some("test-manager"));
    assert_eq!(apply.query_param("force"), Some("true"));
    assert_eq!(
        apply.body.as_ref().map(|b| b["data"]["d"].clone()),
        Some(json!("5"))
    );
    let kinds: Vec<_> = requests
        .iter()
        .filter(|r| r.method == "PATCH")
        .filter_map(|r| r.content_type.clone())
        .collect();
    for kind in [
        "application/merge-patch+json",
        "application/json-patch+json",
        "application/strategic-merge-patch+json",
        "application/apply-patch+yaml",
    ] {
        assert!(kinds.iter().any(|k| k == kind), "{kind} not recorded");
    }
    Ok(())
}

#[tokio::test]
async fn custom_resource_status_subresource() -> Result<()> {
    let server = server_with_widgets().await;
    let widgets: Api<Widget> = Api::default_namespaced(server.client());

    let mut w = widget("w1", 1);
    w.status = Some(WidgetStatus {
        observed_size: Some(99),
    });
    let created = widgets.create(&PostParams::default(), &w).await?;
    assert_eq!(
        created.status, None,
        "status is ignored on create with a status subresource"
    );

    let patched = widgets
        .patch_status(
            "w1",
            &PatchParams::apply("x").force(),
            &Patch::Apply(json!({
                "apiVersion": "test.quarterdeck.dev/v1",
                "kind": "Widget",
                "status": {"observedSize": 1},
            })),
        )
        .await?;
    assert_eq!(
        patched.status,
        Some(WidgetStatus {
            observed_size: Some(1)
        })
    );
    assert_eq!(
        patched.meta().generation,
        Some(1),
        "status writes keep generation"
    );
    assert_eq!(patched.spec, WidgetSpec { size: 1 });

    let stored = server
        .object(GROUP, "v1", "widgets", Some("default"), "w1")
        .context("stored widget")?;
    assert_eq!(stored["status"]["observedSize"], 1);
    assert_eq!(stored["apiVersion"], "test.quarterdeck.dev/v1");

    // Writes to the main resource ignore status; spec changes bump generation.
    let mut changed = patched.clone();
    changed.spec.size = 2;
    changed.status = Some(WidgetStatus {
        observed_size: Some(42),
    });
    let replaced = widgets
        .replace("w1", &PostParams::default(), &changed)
        .await?;
    assert_eq!(
        replaced.status,
        Some(WidgetStatus {
            observed_size: Some(1)
        })
    );
    assert_eq!(replaced.meta().generation, Some(2));

    // Writes to /status ignore everything but status.
    let mut via_status = replaced.clone();
    via_status.spec.size = 7;
    via_status.status = Some(WidgetStatus {
        observed_size: Some(2),
    });
    let status_replaced = widgets
        .replace_status("w1", &PostParams::default(), &via_status)
        .await?;
    assert_eq!(status_replaced.spec.size, 2);
    assert_eq!(
        status_replaced.status,
        Some(WidgetStatus {
            observed_size: Some(2)
        })
    );
    assert_eq!(
        widgets.get_status("w1").await?.status,
        status_replaced.status
    );

    // Patching status of a missing object is a 404 even with apply.
    assert_eq!(
        api_code(
            widgets
                .patch_status(
                    "nope",
                    &PatchParams::apply("x"),
                    &Patch::Apply(json!({"status": {}}))
                )
                .await
        ),
        Some(404)
    );

    // Custom resources answer deletes with the deleted object.
    let deleted = widgets.delete("w1", &DeleteParams::default()).await?;
    assert_eq!(deleted.left().map(|w| w.name_any()).as_deref(), Some("w1"));
    assert!(server.objects(GROUP, "v1", "widgets").is_empty());

    // A manually registered cluster-scoped kind.
    server.register(ResourceType::cluster_scoped(
        "test.quarterdeck.dev",
        "v1",
        "Gadget",
        "gadgets",
    ));
    let gadgets: Api<kube::core::DynamicObject> = Api::all_with(
        server.client(),
        &kube::core::ApiResource::from_gvk_with_plural(
            &kube::core::GroupVersionKind::gvk(GROUP, "v1", "Gadget"),
            "gadgets",
        ),
    );
    let gadget: kube::core::DynamicObject = serde_json::from_value(json!({
        "apiVersion": "test.quarterdeck.dev/v1", "kind": "Gadget",
        "metadata": {"name": "g1"}, "spec": {"on": true},
    }))?;
    gadgets.create(&PostParams::default(), &gadget).await?;
    let stored = server
        .object(GROUP, "v1", "gadgets", None, "g1")
        .context("gadget")?;
    assert!(stored["metadata"].get("namespace").is_none());
    Ok(())
}

#[tokio::test]
async fn watcher_sees_init_then_added_modified_deleted_in_order() -> Result<()> {
    let server = FakeApiServer::start().await;
    let client = server.client();
    let cms: Api<ConfigMap> = Api::default_namespaced(client.clone());
    cms.create(&PostParams::default(), &config_map("pre-existing", &[]))
        .await?;

    for streaming in [false, true] {
        let config = if streaming {
            watcher::Config::default().streaming_lists()
        } else {
            watcher::Config::default()
        };
        let mut stream = watcher(cms.clone(), config.labels("app=demo")).boxed();
        assert!(matches!(next(&mut stream).await??, watcher::Event::Init));
        match next(&mut stream).await?? {
            watcher::Event::InitApply(cm) => assert_eq!(cm.name_any(), "pre-existing"),
            other => bail!("expected InitApply, got {other:?}"),
        }
        assert!(matches!(
            next(&mut stream).await??,
            watcher::Event::InitDone
        ));

        let name = format!("live-{streaming}");
        cms.create(&PostParams::default(), &config_map(&name, &[("v", "1")]))
            .await?;
        cms.patch(
            &name,
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"v": "2"}})),
        )
        .await?;
        cms.delete(&name, &DeleteParams::default()).await?;

        match next(&mut stream).await?? {
            watcher::Event::Apply(cm) => {
                assert_eq!(cm.name_any(), name);
                assert_eq!(
                    cm.data
                        .as_ref()
                        .and_then(|d| d.get("v"))
                        .map(String::as_str),
                    Some("1")
                );
            }
            other => bail!("expected Apply(added), got {other:?}"),
        }
        match next(&mut stream).await?? {
            watcher::Event::Apply(cm) => {
                assert_eq!(
                    cm.data
                        .as_ref()
                        .and_then(|d| d.get("v"))
                        .map(String::as_str),
                    Some("2")
                );
            }
            other => bail!("expected Apply(modified), got {other:?}"),
        }
        match next(&mut stream).await?? {
            watcher::Event::Delete(cm) => assert_eq!(cm.name_any(), name),
            other => bail!("expected Delete, got {other:?}"),
        }
    }

    let watches: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.query_param("watch") == Some("true"))
        .collect();
    assert!(
        watches
            .iter()
            .any(|r| r.query_param("sendInitialEvents") == Some("true"))
    );
    assert!(
        watches
            .iter()
            .all(|r| r.query_param("labelSelector") == Some("app=demo"))
    );
    Ok(())
}

#[tokio::test]
async fn raw_watch_resumes_from_resource_version_and_sends_bookmarks() -> Result<()> {
    let server = FakeApiServer::start().await;
    let cms: Api<ConfigMap> = Api::default_namespaced(server.client());
    let created = cms
        .create(&PostParams::default(), &config_map("c", &[("n", "0")]))
        .await?;
    let from = created.resource_version().context("rv")?;
    for n in 1..=3 {
        cms.patch(
            "c",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"n": n.to_string()}})),
        )
        .await?;
    }
    // Changes to other objects and kinds are filtered out.
    cms.create(&PostParams::default(), &config_map("unrelated", &[]))
        .await?;
    let secrets: Api<Secret> = Api::default_namespaced(server.client());
    secrets
        .create(
            &PostParams::default(),
            &Secret {
                metadata: ObjectMeta {
                    name: Some("s".into()),
                    ..ObjectMeta::default()
                },
                ..Secret::default()
            },
        )
        .await?;

    let params = WatchParams::default().fields("metadata.name=c").timeout(5);
    let mut stream = cms.watch(&params, &from).await?.boxed();
    for n in 1..=3 {
        match next(&mut stream).await?? {
            WatchEvent::Modified(cm) => assert_eq!(
                cm.data.as_ref().and_then(|d| d.get("n")).cloned(),
                Some(n.to_string())
            ),
            other => bail!("expected replayed MODIFIED {n}, got {other:?}"),
        }
    }
    cms.delete("c", &DeleteParams::default()).await?;
    match next(&mut stream).await?? {
        WatchEvent::Deleted(cm) => {
            let rv: u64 = cm.resource_version().context("rv")?.parse()?;
            assert_eq!(rv.to_string(), server.resource_version());
        }
        other => bail!("expected DELETED, got {other:?}"),
    }

    // Bookmarks arrive periodically when requested.
    let params = WatchParams::default().timeout(10); // bookmarks are requested by default
    let mut stream = cms
        .watch(&params, &server.resource_version())
        .await?
        .boxed();
    match next(&mut stream).await?? {
        WatchEvent::Bookmark(bm) => {
            assert_eq!(bm.metadata.resource_version, server.resource_version())
        }
        other => bail!("expected BOOKMARK, got {other:?}"),
    }

    // timeoutSeconds closes the stream.
    let params = WatchParams::default().timeout(1);
    let mut stream = cms
        .watch(&params, &server.resource_version())
        .await?
        .boxed();
    let ended = tokio::time::timeout(Duration::from_secs(5), stream.next()).await?;
    assert!(ended.is_none(), "watch should end after timeoutSeconds");
    Ok(())
}

#[tokio::test]
async fn watch_from_compacted_resource_version_is_gone() -> Result<()> {
    let server = FakeApiServer::start().await;
    let cms: Api<ConfigMap> = Api::default_namespaced(server.client());
    let created = cms
        .create(&PostParams::default(), &config_map("c", &[]))
        .await?;
    let old = created.resource_version().context("rv")?;
    cms.patch(
        "c",
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"x": "y"}})),
    )
    .await?;
    server.compact_history();

    let mut stream = cms.watch(&WatchParams::default(), &old).await?.boxed();
    match next(&mut stream).await?? {
        WatchEvent::Error(status) => {
            assert_eq!(status.code, 410);
            assert_eq!(status.reason, "Expired");
        }
        other => bail!("expected ERROR 410, got {other:?}"),
    }
    assert!(
        next(&mut stream).await.is_err(),
        "stream ends after the error"
    );

    // Watching from the current version still works, and a watcher recovers by relisting.
    let mut stream = cms
        .watch(
            &WatchParams::default().timeout(5),
            &server.resource_version(),
        )
        .await?
        .boxed();
    cms.delete("c", &DeleteParams::default()).await?;
    assert!(matches!(next(&mut stream).await??, WatchEvent::Deleted(_)));
    Ok(())
}

#[tokio::test]
async fn unavailable_server_answers_503_until_restored() -> Result<()> {
    let server = FakeApiServer::start().await;
    let cms: Api<ConfigMap> = Api::default_namespaced(server.client());
    cms.create(&PostParams::default(), &config_map("c", &[]))
        .await?;

    let mut stream = cms
        .watch(
            &WatchParams::default().timeout(30),
            &server.resource_version(),
        )
        .await?
        .boxed();
    server.set_available(false);
    match cms.get("c").await {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 503);
            assert_eq!(status.reason, "ServiceUnavailable");
        }
        other => bail!("expected 503, got {other:?}"),
    }
    assert_eq!(api_code(cms.list(&ListParams::default()).await), Some(503));
    // Open watches are cut off by the outage.
    let ended = tokio::time::timeout(STEP, stream.next()).await?;
    assert!(
        ended.is_none(),
        "watch should end when the server goes down"
    );
    assert_eq!(
        server.requests().last().map(|r| r.path.clone()).as_deref(),
        Some("/api/v1/namespaces/default/configmaps")
    );

    server.set_available(true);
    assert_eq!(cms.get("c").await?.name_any(), "c");
    Ok(())
}

#[tokio::test]
async fn discovery_metadata_and_misc_endpoints() -> Result<()> {
    let server = server_with_widgets().await;
    let client = server.client();

    let version = client.apiserver_version().await?;
    assert_eq!(version.major, "1");
    let discovery = kube::discovery::Discovery::new(client.clone())
        .run()
        .await?;
    assert!(discovery.has_group(GROUP));
    let (widget_res, caps) = discovery
        .groups()
        .flat_map(|g| g.recommended_resources())
        .find(|(r, _)| r.kind == "Widget")
        .context("Widget discovered")?;
    assert_eq!(widget_res.plural, "widgets");
    assert!(caps.subresources.iter().any(|(s, _)| s.plural == "status"));

    // Metadata-only list (PartialObjectMetadata).
    let cms: Api<ConfigMap> = Api::default_namespaced(client.clone());
    cms.create(&PostParams::default(), &config_map("c", &[]))
        .await?;
    let meta = cms.list_metadata(&ListParams::default()).await?;
    assert_eq!(meta.items.len(), 1);
    assert_eq!(meta.items[0].name_any(), "c");
    let cm_meta: Api<kube::core::PartialObjectMeta<ConfigMap>> =
        Api::default_namespaced(client.clone());
    let mut meta_stream = watcher(cm_meta, watcher::Config::default().streaming_lists()).boxed();
    assert!(matches!(
        next(&mut meta_stream).await??,
        watcher::Event::Init
    ));
    match next(&mut meta_stream).await?? {
        watcher::Event::InitApply(m) => assert_eq!(m.name_any(), "c"),
        other => bail!("expected InitApply, got {other:?}"),
    }
    assert!(matches!(
        next(&mut meta_stream).await??,
        watcher::Event::InitDone
    ));
    cms.patch(
        "c",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"labels": {"x": "1"}}})),
    )
    .await?;
    match next(&mut meta_stream).await?? {
        watcher::Event::Apply(m) => assert_eq!(m.labels().get("x").map(String::as_str), Some("1")),
        other => bail!("expected Apply, got {other:?}"),
    }

    // Namespaces are cluster-scoped, get a phase and have a status subresource.
    let nss: Api<Namespace> = Api::all(client.clone());
    let ns = nss
        .create(
            &PostParams::default(),
            &Namespace {
                metadata: ObjectMeta {
                    name: Some("team-a".into()),
                    ..ObjectMeta::default()
                },
                ..Namespace::default()
            },
        )
        .await?;
    assert_eq!(ns.status.and_then(|s| s.phase).as_deref(), Some("Active"));
    assert!(nss.get_status("team-a").await.is_ok());

    // Secrets: stringData is folded into base64 data.
    let secrets: Api<Secret> = Api::namespaced(client.clone(), "team-a");
    let secret = secrets
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({
                "apiVersion": "v1", "kind": "Secret",
                "metadata": {"name": "creds"}, "stringData": {"password": "hunter2"},
            }))?,
        )
        .await?;
    assert_eq!(
        secret
            .data
            .and_then(|d| d.get("password").map(|b| b.0.clone())),
        Some(b"hunter2".to_vec())
    );

    // Dry-run writes change nothing.
    cms.create(
        &PostParams {
            dry_run: true,
            ..PostParams::default()
        },
        &config_map("dry", &[]),
    )
    .await?;
    assert!(
        server
            .object("", "v1", "configmaps", Some("default"), "dry")
            .is_none()
    );

    // delete_collection with a selector.
    cms.create(&PostParams::default(), &config_map("d", &[]))
        .await?;
    cms.delete_collection(
        &DeleteParams::default(),
        &ListParams::default().labels("app=demo"),
    )
    .await?;
    assert!(server.objects("", "v1", "configmaps").is_empty());

    // Unknown paths and kinds are 404 Status objects.
    let unknown: Api<kube::core::DynamicObject> = Api::default_namespaced_with(
        client,
        &kube::core::ApiResource::from_gvk(&kube::core::GroupVersionKind::gvk(
            "nope.dev", "v1", "Thing",
        )),
    );
    match unknown.list(&ListParams::default()).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 404);
            assert_eq!(status.reason, "NotFound");
        }
        other => bail!("expected 404, got {other:?}"),
    }
    ensure!(
        server.url().starts_with("http://127.0.0.1:"),
        "loopback url"
    );
    Ok(())
}

#[tokio::test]
async fn dropping_the_server_stops_it() -> Result<()> {
    let server = FakeApiServer::start().await;
    let cms: Api<ConfigMap> = Api::default_namespaced(server.client());
    cms.create(&PostParams::default(), &config_map("c", &[]))
        .await?;
    let mut stream = cms
        .watch(
            &WatchParams::default().timeout(60),
            &server.resource_version(),
        )
        .await?
        .boxed();
    drop(server);
    let ended = tokio::time::timeout(STEP, stream.next()).await?;
    assert!(
        ended.is_none(),
        "open watches end when the server is dropped"
    );
    let after = tokio::time::timeout(STEP, cms.get("c")).await?;
    assert!(after.is_err(), "requests fail once the server is gone");
    Ok(())
}
