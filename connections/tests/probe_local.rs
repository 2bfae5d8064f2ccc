//! The folder and jmeter connection tests: a real directory and a real TCP
//! listener on this machine.

mod common;

use common::{connection, try_it};
use quarterdeck_connections::probe::ProbeError;

#[tokio::test]
async fn folder_lists_a_readable_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "a").unwrap();
    let c = connection("folder", dir.path().to_str().unwrap());
    let tried = try_it(&c).await.unwrap();
    assert!(
        tried
            .message
            .ends_with("is a readable directory with 1 entries"),
        "{tried:?}"
    );
}

#[tokio::test]
async fn folder_missing_is_refused_with_the_systems_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let c = connection("folder", missing.to_str().unwrap());
    match try_it(&c).await {
        Err(ProbeError::Refused(message)) => assert!(message.contains("No such file"), "{message}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn folder_with_a_remote_scheme_points_at_the_cloud_types() {
    let c = connection("folder", "s3://bucket/path");
    match try_it(&c).await {
        Err(ProbeError::Invalid {
            field: "url",
            message,
        }) => {
            assert!(message.contains("aws, s3 or gcs"), "{message}")
        }
        other => panic!("expected an invalid url, got {other:?}"),
    }
}

#[tokio::test]
async fn jmeter_connects_to_a_listening_port_and_names_a_closed_one() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut c = connection("jmeter", "127.0.0.1");
    c.properties.insert("port".into(), port.to_string());
    try_it(&c).await.unwrap();

    drop(listener);
    match try_it(&c).await {
        Err(ProbeError::Refused(message)) => {
            assert!(
                message.starts_with(&format!("127.0.0.1:{port}: ")),
                "{message}"
            )
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}
