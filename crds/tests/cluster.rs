//! The committed CRDs against a real kube-apiserver (`hack/test.sh` starts one
//! and exports KUBECONFIG and QD_KUBECTL): `kubectl apply` reads the files as
//! YAML 1.1, as users' tools do, and what the server stores must equal what
//! the types generate, property names included.

mod common;

use std::env;
use std::process::Command;

use serde_json::Value;

fn kubectl(args: &[&str]) -> String {
    let kubectl = env::var("QD_KUBECTL").unwrap_or_else(|_| "kubectl".into());
    assert!(
        env::var_os("KUBECONFIG").is_some(),
        "KUBECONFIG is not set: run the suite with hack/test.sh, which starts a real kube-apiserver (see README, Tests)"
    );
    let output = Command::new(&kubectl)
        .args(args)
        .output()
        .unwrap_or_else(|error| panic!("{kubectl}: {error}"));
    assert!(
        output.status.success(),
        "kubectl {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("kubectl prints UTF-8")
}

/// Paths at which `stored` differs from `generated`. Objects the server may
/// complete (defaults such as `names.singular`) are compared on the generated
/// keys, except schemas, which must have exactly the same keys.
fn differences(path: &str, generated: &Value, stored: &Value, out: &mut Vec<String>) {
    match (generated, stored) {
        (Value::Object(g), Value::Object(s)) => {
            let in_schema = path.contains("openAPIV3Schema");
            if in_schema {
                for key in s.keys().filter(|k| !g.contains_key(*k)) {
                    out.push(format!("{path}.{key}: stored, not generated"));
                }
            }
            for (key, value) in g {
                match s.get(key) {
                    Some(stored) => differences(&format!("{path}.{key}"), value, stored, out),
                    None => out.push(format!("{path}.{key}: generated, not stored")),
                }
            }
        }
        (Value::Array(g), Value::Array(s)) if g.len() == s.len() => {
            for (i, (g, s)) in g.iter().zip(s).enumerate() {
                differences(&format!("{path}[{i}]"), g, s, out);
            }
        }
        // YAML and JSON readers may tell 0 from 0.0; the server keeps either.
        (Value::Number(g), Value::Number(s)) if g.as_f64() == s.as_f64() => {}
        _ if generated == stored => {}
        _ => out.push(format!("{path}: generated {generated}, stored {stored}")),
    }
}

#[test]
fn chart_crds_apply_and_read_back_as_generated() {
    let dir = common::workspace_root().join("charts/quarterdeck/crds");
    kubectl(&["apply", "-f", dir.to_str().expect("UTF-8 path")]);

    let mut problems = Vec::new();
    for crd in quarterdeck_crds::all() {
        let name = crd.metadata.name.clone().expect("CRDs are named");
        kubectl(&[
            "wait",
            "--for=condition=Established",
            "--timeout=60s",
            &format!("crd/{name}"),
        ]);
        let stored: Value = serde_json::from_str(&kubectl(&["get", "crd", &name, "-o", "json"]))
            .expect("kubectl prints JSON");
        let generated = serde_json::to_value(&crd.spec).expect("CRD serialises");
        differences(&name, &generated, &stored["spec"], &mut problems);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
