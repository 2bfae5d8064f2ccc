//! The GitOps previews (`POST /api/integrations/preview`) against the tools
//! users run them with (`hack/test.sh` starts a real kube-apiserver and
//! exports KUBECONFIG, QD_KUBECTL, QD_HELM and QD_THIRD_PARTY_CRDS, the Flux
//! CRDs from Flux's Go modules among them):
//!
//! - the Flux YAML reads the same to kubectl's decoder (YAML 1.1) as to a
//!   YAML 1.2 reader, and passes a strict server-side dry run with Flux's
//!   CRDs installed, the server storing the names, namespace and values sent;
//! - the Helm CLI commands run in bash with the real helm, the repository
//!   chart replaced by a stand-in with the option's values schema that
//!   renders its values: helm reads the same release, namespace and values as
//!   the Flux HelmRelease holds.
//!
//! For every option: its golden values in the default namespace, and the
//! same values with YAML 1.1 lookalikes (`on`, `yes`, `0777`, ...) wherever
//! its schema allows them, in namespaces named like them.

mod common;

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use common::Api;
use quarterdeck_api::{AppState, AuthSettings};
use reqwest::{Client, StatusCode};
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::PgPool;
use tokio::process::Command;

const PASSWORD: &str = "correct horse battery";
const CHARTS: &str = "https://charts.example.test/quarterdeck";
/// The longest any one kubectl, helm or bash run may take.
const TOOL_TIMEOUT: Duration = Duration::from_secs(90);
/// Strings YAML 1.1 reads as booleans, nulls or numbers, and the namespaces
/// named like them the previews install into.
const LOOKALIKES: &[&str] = &[
    "on", "yes", "0777", "1e3", "off", "n", "y", "no", "null", "~", "12:30", "true", "0x1F",
    "1_000", ".5",
];
const LOOKALIKE_KEYS: &[&str] = &["on", "yes", "n", "0777"];
const NAMESPACES: &[&str] = &["on", "yes", "1e3", "0777"];
/// Replaces `helm` in the previewed commands: `repo` calls are recorded,
/// `install` runs the real `helm template` on the stand-in chart.
const HELM_SHIM: &str = r#"
helm() {
  case "$1" in
    repo) printf '%s\0' "$@" >>"$QD_REPO_LOG" ;;
    install)
      shift
      local args=() a
      for a in "$@"; do
        if [ "$a" = "$QD_CHART_REF" ]; then args+=("$QD_CHART_DIR"); else args+=("$a"); fi
      done
      "$QD_HELM" template "${args[@]}" ;;
    *) echo "unexpected: helm $*" >&2; return 1 ;;
  esac
}
set -e
"#;

struct Tools {
    kubectl: String,
    helm: String,
    flux_crds: String,
}

impl Tools {
    fn from_env() -> Self {
        let var = |name: &str| {
            std::env::var(name).unwrap_or_else(|_| {
                panic!(
                    "{name} is not set: run the suite with hack/test.sh (or hack/with-kube.sh), \
                     which starts a real kube-apiserver (see README, Tests)"
                )
            })
        };
        var("KUBECONFIG");
        Self {
            kubectl: var("QD_KUBECTL"),
            helm: var("QD_HELM"),
            flux_crds: format!("{}/flux", var("QD_THIRD_PARTY_CRDS")),
        }
    }

    async fn kubectl(&self, args: &[&str], stdin: Option<&str>) -> String {
        succeeded(
            &self.kubectl,
            args,
            run(&self.kubectl, args, stdin, &[]).await,
        )
    }
}

/// Runs a program to its end, feeding it `stdin`.
async fn run(program: &str, args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(program);
    command.args(args).envs(env.iter().copied());
    common::tool::run_to_end(command, stdin, TOOL_TIMEOUT).await
}

fn succeeded(program: &str, args: &[&str], output: Output) -> String {
    assert!(
        output.status.success(),
        "{program} {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The YAML documents as a YAML 1.2 reader sees them.
fn documents(yaml: &str) -> Vec<Value> {
    yaml_serde::Deserializer::from_str(yaml)
        .map(|doc| Value::deserialize(doc).unwrap())
        .collect()
}

/// The objects kubectl printed with `-o json`: one List, or one object after
/// another.
fn printed_objects(output: &str) -> Vec<Value> {
    let printed: Vec<Value> = serde_json::Deserializer::from_str(output)
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    match printed.as_slice() {
        [list] if list["kind"] == "List" => list["items"].as_array().unwrap().clone(),
        _ => printed,
    }
}

/// JSON Pointers to every string and every object within `value`.
fn pointers(value: &Value, at: String, strings: &mut Vec<String>, objects: &mut Vec<String>) {
    match value {
        Value::String(_) => strings.push(at),
        Value::Object(map) => {
            for (key, child) in map {
                let key = key.replace('~', "~0").replace('/', "~1");
                pointers(child, format!("{at}/{key}"), strings, objects);
            }
            objects.push(at);
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                pointers(child, format!("{at}/{i}"), strings, objects);
            }
        }
        _ => {}
    }
}

/// `values` with YAML 1.1 lookalikes for every string and as a key of every
/// map, wherever the schema still accepts them; and how many it took.
fn with_lookalikes(values: &Value, schema: &Value) -> (Value, usize) {
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap();
    let (mut strings, mut objects) = (Vec::new(), Vec::new());
    pointers(values, String::new(), &mut strings, &mut objects);
    let mut out = values.clone();
    let mut taken = 0;
    let candidates = strings.iter().enumerate().map(|(i, p)| {
        let lookalike = LOOKALIKES[i % LOOKALIKES.len()];
        (p.clone(), None, Value::String(lookalike.into()))
    });
    let keys = objects.iter().enumerate().map(|(i, p)| {
        let key = LOOKALIKE_KEYS[i % LOOKALIKE_KEYS.len()];
        (p.clone(), Some(key), json!("yes"))
    });
    for (pointer, key, value) in candidates.chain(keys) {
        let mut changed = out.clone();
        let slot = changed.pointer_mut(&pointer).unwrap();
        match key {
            Some(key) => {
                slot.as_object_mut().unwrap().insert(key.into(), value);
            }
            None => *slot = value,
        }
        if validator.is_valid(&changed) {
            out = changed;
            taken += 1;
        }
    }
    (out, taken)
}

/// A chart named like the option's, with its values schema, rendering its
/// release name, namespace and values into a ConfigMap.
fn stand_in_chart(dir: &Path, chart: &str, schema: &Value) {
    std::fs::create_dir_all(dir.join("templates")).unwrap();
    std::fs::write(
        dir.join("Chart.yaml"),
        format!("apiVersion: v2\nname: {chart}\nversion: 0.0.0\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("values.schema.json"),
        serde_json::to_string_pretty(schema).unwrap(),
    )
    .unwrap();
    std::fs::write(
        dir.join("templates/values.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name | quote }}\n  \
         namespace: {{ .Release.Namespace | quote }}\ndata:\n  values: {{ .Values | toJson | quote }}\n",
    )
    .unwrap();
}

/// Checks one preview of `values` into `namespace` with kubectl, the server
/// and helm.
async fn check_preview(
    tools: &Tools,
    preview: &Value,
    chart_dir: &Path,
    namespace: &str,
    values: &Value,
    scratch: &Path,
) {
    let flux = preview["flux"].as_str().unwrap();
    let helm = preview["helm"].as_str().unwrap();
    let context = format!("namespace {namespace}, values {values}:\n{flux}\n{helm}");

    // kubectl's decoder reads what a YAML 1.2 reader reads.
    let docs = documents(flux);
    assert_eq!(docs.len(), 3, "{context}");
    let decoded = printed_objects(
        &tools
            .kubectl(
                &["create", "--dry-run=client", "-o", "json", "-f", "-"],
                Some(flux),
            )
            .await,
    );
    assert_eq!(decoded, docs, "kubectl reads otherwise: {context}");

    // The server accepts them strictly and stores what was meant.
    let applied = printed_objects(
        &tools
            .kubectl(
                &[
                    "apply",
                    "--dry-run=server",
                    "--validate=strict",
                    "-o",
                    "json",
                    "-f",
                    "-",
                ],
                Some(flux),
            )
            .await,
    );
    let [ns, repository, release] = applied.as_slice() else {
        panic!("the server answered {applied:?}: {context}")
    };
    assert_eq!(ns["kind"], "Namespace", "{context}");
    assert_eq!(ns["metadata"]["name"], namespace, "{context}");
    assert_eq!(repository["kind"], "HelmRepository", "{context}");
    assert_eq!(repository["metadata"]["namespace"], namespace, "{context}");
    assert_eq!(repository["spec"]["url"], CHARTS, "{context}");
    assert_eq!(release["kind"], "HelmRelease", "{context}");
    assert_eq!(release["metadata"]["namespace"], namespace, "{context}");
    let source = &release["spec"]["chart"]["spec"];
    assert_eq!(source["sourceRef"]["name"], repository["metadata"]["name"]);
    assert_eq!(source["sourceRef"]["namespace"], namespace, "{context}");
    let empty = json!({});
    let stored_values = release["spec"].get("values").unwrap_or(&empty);
    assert_eq!(stored_values, values, "{context}");

    // The Helm commands, run by bash with the real helm, install the same.
    let repo_log = scratch.join("repo.log");
    let _ = std::fs::remove_file(&repo_log);
    let chart_ref = format!(
        "{}/{}",
        repository["metadata"]["name"].as_str().unwrap(),
        source["chart"].as_str().unwrap()
    );
    let script = format!("{HELM_SHIM}{helm}");
    let rendered = succeeded(
        "bash",
        &["-c", "(helm commands)"],
        run(
            "bash",
            &["-c", &script],
            None,
            &[
                ("QD_HELM", &tools.helm),
                ("QD_REPO_LOG", repo_log.to_str().unwrap()),
                ("QD_CHART_REF", &chart_ref),
                ("QD_CHART_DIR", chart_dir.to_str().unwrap()),
            ],
        )
        .await,
    );
    let repo_calls = std::fs::read_to_string(&repo_log).unwrap();
    let repository_name = repository["metadata"]["name"].as_str().unwrap();
    assert_eq!(
        repo_calls.split_terminator('\0').collect::<Vec<_>>(),
        ["repo", "add", repository_name, CHARTS, "repo", "update"],
        "{context}"
    );
    let config_maps = documents(&rendered);
    let [config_map] = config_maps.as_slice() else {
        panic!("helm rendered {rendered}")
    };
    assert_eq!(config_map["metadata"]["name"], release["metadata"]["name"]);
    assert_eq!(config_map["metadata"]["namespace"], namespace, "{context}");
    let installed: Value =
        serde_json::from_str(config_map["data"]["values"].as_str().unwrap()).unwrap();
    assert_eq!(&installed, values, "helm reads other values: {context}");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn previews_apply_and_install_with_kubectl_flux_crds_and_helm(pool: PgPool) {
    let tools = Tools::from_env();
    tools
        .kubectl(
            &[
                "apply",
                "--server-side",
                "--force-conflicts",
                "-f",
                &tools.flux_crds,
            ],
            None,
        )
        .await;
    tools
        .kubectl(
            &[
                "wait",
                "--for=condition=Established",
                "--timeout=60s",
                "crd/helmrepositories.source.toolkit.fluxcd.io",
                "crd/helmreleases.helm.toolkit.fluxcd.io",
            ],
            None,
        )
        .await;
    // Server-side dry runs need the namespaces to exist. Their names are
    // shared by every test on this server, so they are created when missing
    // and never deleted.
    for namespace in NAMESPACES.iter().chain(&["quarterdeck"]) {
        let output = run(
            &tools.kubectl,
            &["create", "namespace", namespace],
            None,
            &[],
        )
        .await;
        let error = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success() || error.contains("AlreadyExists"),
            "{error}"
        );
    }

    let api = Api::start_state(pool.clone(), |_| {
        AppState::new(pool, AuthSettings::default()).with_chart_repository_url(CHARTS)
    })
    .await;
    api.person("viewer@example.com", &["viewer"], PASSWORD)
        .await;
    let client: Client = api.signed_in("viewer@example.com", PASSWORD).await;
    let options: Vec<Value> = client
        .get(api.at("/api/integrations/options"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(!options.is_empty());

    let scratch = tempfile::tempdir().unwrap();
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/integrations");
    for option in &options {
        let id = option["id"].as_str().unwrap();
        let chart_dir = scratch.path().join(id);
        stand_in_chart(
            &chart_dir,
            option["chart"].as_str().unwrap(),
            &option["schema"],
        );
        let text = std::fs::read_to_string(golden.join(format!("{id}.values.json"))).unwrap();
        let values: Value = serde_json::from_str(&text).unwrap();
        let (lookalikes, taken) = with_lookalikes(&values, &option["schema"]);
        assert!(taken > 0, "{id}: the schema takes no YAML 1.1 lookalike");

        let mut cases = vec![(None, values)];
        cases.extend(NAMESPACES.iter().map(|ns| (Some(*ns), lookalikes.clone())));
        for (namespace, values) in cases {
            let res = client
                .post(api.at("/api/integrations/preview"))
                .json(&json!({"option": id, "namespace": namespace, "values": values}))
                .send()
                .await
                .unwrap();
            assert_eq!(res.status(), StatusCode::OK, "{id} {namespace:?}");
            let preview: Value = res.json().await.unwrap();
            let namespace = namespace.unwrap_or("quarterdeck");
            check_preview(
                &tools,
                &preview,
                &chart_dir,
                namespace,
                &values,
                scratch.path(),
            )
            .await;
        }
    }
}
