//! Every manifest in config/samples/ parses into its kind, round-trips without gaining fields,
//! matches the CRD schema and passes the kind's rules.

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use quarterdeck_crds::{AccessScope, Canary, Permission, Playbook, ScrapeConfig, Topology};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

fn samples() -> Vec<(PathBuf, Value)> {
    let dir = common::workspace_root().join("config/samples");
    let mut paths: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("readable entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = fs::read_to_string(&path).expect("readable sample");
            let value: Value =
                yaml_serde::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path, value)
        })
        .collect()
}

/// Parses `value` as `K` and checks that serialising it again gives back exactly `value`.
fn round_trip<K: DeserializeOwned + Serialize>(path: &Path, value: &Value) -> K {
    let parsed: K =
        serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let again = serde_json::to_value(&parsed).expect("serialises");
    assert_eq!(
        &again,
        value,
        "{}: round trip changed the manifest",
        path.display()
    );
    parsed
}

#[test]
fn samples_parse_round_trip_and_validate() {
    let mut kinds = BTreeSet::new();
    for (path, value) in samples() {
        assert_eq!(
            value["apiVersion"],
            quarterdeck_crds::API_VERSION,
            "{}",
            path.display()
        );
        let kind = value["kind"].as_str().expect("kind").to_string();

        let errors = common::structural_errors(&common::schema(&kind), &value);
        assert!(errors.is_empty(), "{}: {errors:?}", path.display());

        match kind.as_str() {
            "Canary" => {
                round_trip::<Canary>(&path, &value);
            }
            "Topology" => {
                round_trip::<Topology>(&path, &value);
            }
            "ScrapeConfig" => {
                round_trip::<ScrapeConfig>(&path, &value);
            }
            "Playbook" => {
                let playbook = round_trip::<Playbook>(&path, &value);
                assert!(
                    playbook.spec.actions.iter().all(|a| a.kind().is_some()),
                    "{}: every action needs a kind",
                    path.display()
                );
            }
            "Permission" => {
                let permission = round_trip::<Permission>(&path, &value);
                kube::core::cel::validate_cel(&permission)
                    .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
            }
            "AccessScope" => {
                let scope = round_trip::<AccessScope>(&path, &value);
                scope
                    .spec
                    .validate()
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                kube::core::cel::validate_cel(&scope)
                    .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
            }
            other => panic!("{}: unknown kind {other}", path.display()),
        }
        kinds.insert(kind);
    }
    let expected: BTreeSet<_> = [
        "AccessScope",
        "Canary",
        "Permission",
        "Playbook",
        "ScrapeConfig",
        "Topology",
    ]
    .map(String::from)
    .into();
    assert_eq!(kinds, expected, "a sample for every kind");
}

#[test]
fn http_sample_targets_the_local_console() {
    let (_, value) = samples()
        .into_iter()
        .find(|(path, _)| path.ends_with("canary-http.yaml"))
        .expect("canary-http.yaml");
    let canary: Canary = serde_json::from_value(value).expect("parses");
    let http = canary.spec.http.expect("http checks");
    assert!(
        http.iter()
            .all(|c| c.connection.url.as_deref() == Some("http://127.0.0.1:8080/healthz"))
    );
    let tcp = canary.spec.tcp.expect("tcp checks");
    assert_eq!(tcp[0].endpoint.as_deref(), Some("127.0.0.1:9"));
}
