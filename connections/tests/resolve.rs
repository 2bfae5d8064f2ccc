//! From stored values to plain text: decryption, and Secret/ConfigMap
//! references read from a real kube-apiserver (`hack/test.sh` or
//! `hack/with-kube.sh` start one and export KUBECONFIG and QD_KUBECTL).

use std::collections::BTreeMap;
use std::env;
use std::process::Command;

use quarterdeck_connections::form::StoredFields;
use quarterdeck_connections::keyring::Keyring;
use quarterdeck_connections::resolve::{Cause, resolve};

fn stored(keyring: &Keyring) -> StoredFields {
    StoredFields {
        url: Some("postgres://db.example:5432/app".into()),
        username: Some("app".into()),
        password: Some(keyring.encrypt("hunter2")),
        certificate: None,
        insecure_tls: true,
        properties: BTreeMap::from([
            ("tokenA".into(), keyring.encrypt("token-a")),
            ("port".into(), "5432".into()),
        ]),
    }
}

#[tokio::test]
async fn encrypted_values_decrypt_and_plain_values_pass_through() {
    let keyring = Keyring::for_tests();
    let resolved = resolve("postgres", "team", "db", &stored(&keyring), &keyring, None)
        .await
        .unwrap();
    assert_eq!(resolved.kind, "postgres");
    assert_eq!(resolved.name, "team/db");
    assert_eq!(
        resolved.url.as_deref(),
        Some("postgres://db.example:5432/app")
    );
    assert_eq!(resolved.username.as_deref(), Some("app"));
    assert_eq!(resolved.password.as_deref(), Some("hunter2"));
    assert_eq!(resolved.certificate, None);
    assert!(resolved.insecure_tls);
    assert_eq!(resolved.property("tokenA"), Some("token-a"));
    assert_eq!(resolved.property("port"), Some("5432"));
}

#[tokio::test]
async fn a_value_under_another_key_names_the_field_and_the_key() {
    let other = Keyring::parse(&Keyring::generate_key(), "test").unwrap();
    let err = resolve(
        "postgres",
        "team",
        "db",
        &stored(&other),
        &Keyring::for_tests(),
        None,
    )
    .await
    .unwrap_err();
    let message = err.to_string();
    assert_eq!(err.field, "password");
    assert!(
        message.contains("team/db") && message.contains("password"),
        "{message}"
    );
    assert!(message.contains(&other.current_key_id()), "{message}");
    assert!(!message.contains("hunter2"), "{message}");
}

#[tokio::test]
async fn without_a_cluster_a_reference_is_an_error_naming_the_field() {
    let keyring = Keyring::for_tests();
    let mut fields = stored(&keyring);
    fields
        .properties
        .insert("tokenA".into(), "configmap://chat/token".into());
    let err = resolve("rocketchat", "team", "chat", &fields, &keyring, None)
        .await
        .unwrap_err();
    let message = err.to_string();
    assert_eq!(err.field, "tokenA");
    assert!(matches!(err.cause, Cause::NoCluster { .. }), "{message}");
    assert!(message.contains("configmap://chat/token"), "{message}");
    assert!(message.contains("no Kubernetes cluster"), "{message}");

    fields.properties.remove("tokenA");
    fields.password = Some("secret://db/password".into());
    let err = resolve("postgres", "team", "db", &fields, &keyring, None)
        .await
        .unwrap_err();
    assert_eq!(err.field, "password");
    assert!(err.to_string().contains("secret://db/password"), "{err}");
}

fn kubectl(args: &[&str], stdin: Option<&str>) {
    let kubectl = env::var("QD_KUBECTL").unwrap_or_else(|_| "kubectl".into());
    let mut child = Command::new(&kubectl)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{kubectl}: {e}"));
    if let Some(text) = stdin {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "kubectl {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
}

async fn cluster() -> kube::Client {
    assert!(
        env::var_os("KUBECONFIG").is_some(),
        "KUBECONFIG is not set: run through hack/test.sh or hack/with-kube.sh, which start a real kube-apiserver"
    );
    let _ = rustls::crypto::ring::default_provider().install_default();
    let config = kube::Config::infer()
        .await
        .expect("a config from KUBECONFIG");
    kube::Client::try_from(config).expect("a client for KUBECONFIG")
}

#[tokio::test]
async fn secret_and_config_map_references_are_read_from_the_cluster() {
    let client = cluster().await;
    let namespace = format!("resolve-{:08x}", rand_suffix());
    kubectl(&["create", "namespace", &namespace], None);
    kubectl(
        &["apply", "-n", &namespace, "-f", "-"],
        Some(
            r#"
apiVersion: v1
kind: Secret
metadata: {name: db}
stringData: {password: from-the-secret}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: chat}
data: {token: from-the-config-map}
"#,
        ),
    );

    let keyring = Keyring::for_tests();
    let mut fields = stored(&keyring);
    fields.password = Some("secret://db/password".into());
    fields
        .properties
        .insert("tokenA".into(), "configmap://chat/token".into());
    let resolved = resolve(
        "rocketchat",
        &namespace,
        "chat",
        &fields,
        &keyring,
        Some(&client),
    )
    .await
    .unwrap();
    assert_eq!(resolved.password.as_deref(), Some("from-the-secret"));
    assert_eq!(resolved.property("tokenA"), Some("from-the-config-map"));
    assert_eq!(resolved.username.as_deref(), Some("app"));

    fields.password = Some("secret://db/missing".into());
    let err = resolve(
        "rocketchat",
        &namespace,
        "chat",
        &fields,
        &keyring,
        Some(&client),
    )
    .await
    .unwrap_err();
    assert_eq!(err.field, "password");
    assert!(
        matches!(&err.cause, Cause::MissingKey { key, .. } if key == "missing"),
        "{err}"
    );

    fields.password = Some("secret://nowhere/password".into());
    let err = resolve(
        "rocketchat",
        &namespace,
        "chat",
        &fields,
        &keyring,
        Some(&client),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(&err.cause, Cause::NotFound { name, .. } if name == "nowhere"),
        "{err}"
    );

    kubectl(&["delete", "namespace", &namespace, "--wait=false"], None);
}

fn rand_suffix() -> u32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos()
        ^ std::process::id()
}
