//! HTTP-speaking connection tests against servers inside the test: http over
//! HTTP and HTTPS (a self-signed certificate), and Elasticsearch against a
//! recorded conversation (no Elasticsearch can run here). Also folder and
//! jmeter, which need only this machine.

mod common;

use common::{connection, http_server, response, self_signed_tls, try_it};
use quarterdeck_connections::probe::ProbeError;

#[tokio::test]
async fn http_get_with_basic_auth_succeeds_below_400() {
    let (addr, mut requests) = http_server(response("200 OK", "text/plain", "hello"), None).await;
    let mut c = connection("http", &format!("http://{addr}/health"));
    c.username = Some("admin".into());
    c.password = Some("s3cret".into());
    let tried = try_it(&c).await.unwrap();
    assert_eq!(
        tried.message,
        format!("http://{addr}/health answered HTTP 200 OK")
    );
    let request = requests.recv().await.unwrap();
    assert!(
        request.head.starts_with("GET /health HTTP/1.1\r\n"),
        "{request:?}"
    );
    // base64("admin:s3cret")
    assert_eq!(
        request.header("authorization"),
        Some("Basic YWRtaW46czNjcmV0")
    );
}

#[tokio::test]
async fn http_redirect_is_the_urls_own_answer() {
    let reply =
        "HTTP/1.1 302 Found\r\nLocation: /login\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    let (addr, _requests) = http_server(reply.into(), None).await;
    let tried = try_it(&connection("http", &format!("http://{addr}/")))
        .await
        .unwrap();
    assert!(
        tried
            .message
            .ends_with("answered HTTP 302 Found (Location: /login)"),
        "{tried:?}"
    );
}

#[tokio::test]
async fn http_error_status_is_refused_with_the_status_line_and_body() {
    let (addr, _requests) = http_server(
        response("503 Service Unavailable", "text/plain", "draining"),
        None,
    )
    .await;
    match try_it(&connection("http", &format!("http://{addr}/"))).await {
        Err(ProbeError::Refused(message)) => {
            assert_eq!(message, "HTTP 503 Service Unavailable: draining");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn https_self_signed_needs_insecure_tls() {
    let (addr, _requests) = http_server(
        response("200 OK", "text/plain", "ok"),
        Some(self_signed_tls()),
    )
    .await;
    let url = format!("https://localhost:{}/", addr.port());
    let mut c = connection("http", &url);
    match try_it(&c).await {
        Err(ProbeError::Refused(message)) => {
            assert!(message.contains("certificate"), "{message}");
        }
        other => panic!("expected the certificate to be refused, got {other:?}"),
    }
    c.insecure_tls = true;
    let tried = try_it(&c).await.unwrap();
    assert_eq!(tried.message, format!("{url} answered HTTP 200 OK"));
}

/// Elasticsearch 8.13's answer to `GET /` (its documented root endpoint body).
const ELASTICSEARCH_ROOT: &str = r#"{
  "name" : "es01",
  "cluster_name" : "docker-cluster",
  "cluster_uuid" : "3wRxHyN3R4WVr3Ofq9tJqg",
  "version" : {
    "number" : "8.13.4",
    "build_flavor" : "default",
    "build_type" : "docker",
    "build_hash" : "da95df118650b55a500dcc181889ac35c6d8da7c",
    "build_date" : "2024-05-06T22:04:45.107454559Z",
    "build_snapshot" : false,
    "lucene_version" : "9.10.0",
    "minimum_wire_compatibility_version" : "7.17.0",
    "minimum_index_compatibility_version" : "7.0.0"
  },
  "tagline" : "You Know, for Search"
}"#;

/// Elasticsearch's answer to a wrong password with security on.
const ELASTICSEARCH_401: &str = r#"{"error":{"root_cause":[{"type":"security_exception","reason":"unable to authenticate user [elastic] for REST request [/]","header":{"WWW-Authenticate":["Basic realm=\"security\" charset=\"UTF-8\"","Bearer realm=\"security\"","ApiKey"]}}],"type":"security_exception","reason":"unable to authenticate user [elastic] for REST request [/]","header":{"WWW-Authenticate":["Basic realm=\"security\" charset=\"UTF-8\"","Bearer realm=\"security\"","ApiKey"]}},"status":401}"#;

#[tokio::test]
async fn elasticsearch_answers_cluster_and_version_against_a_recorded_conversation() {
    let (addr, mut requests) = http_server(
        response("200 OK", "application/json", ELASTICSEARCH_ROOT),
        None,
    )
    .await;
    let mut c = connection("elasticsearch", &format!("http://{addr}"));
    c.username = Some("elastic".into());
    c.password = Some("changeme".into());
    let tried = try_it(&c).await.unwrap();
    assert_eq!(
        tried.message,
        "Elasticsearch 8.13.4, cluster docker-cluster, node es01"
    );
    let request = requests.recv().await.unwrap();
    assert!(
        request.head.starts_with("GET / HTTP/1.1\r\n"),
        "{request:?}"
    );
    assert_eq!(
        request.header("authorization"),
        Some("Basic ZWxhc3RpYzpjaGFuZ2VtZQ==")
    );
}

#[tokio::test]
async fn elasticsearch_wrong_password_is_refused_against_a_recorded_conversation() {
    let reply = ELASTICSEARCH_401;
    let (addr, _requests) = http_server(
        format!(
            "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"security\" charset=\"UTF-8\"\r\ncontent-type: application/json\r\ncontent-length: {}\r\nConnection: close\r\n\r\n{reply}",
            reply.len()
        ),
        None,
    )
    .await;
    let mut c = connection("elasticsearch", &format!("http://{addr}"));
    c.username = Some("elastic".into());
    c.password = Some("wrong".into());
    match try_it(&c).await {
        Err(ProbeError::Refused(message)) => assert_eq!(
            message,
            "HTTP 401 Unauthorized: unable to authenticate user [elastic] for REST request [/]"
        ),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn folder_is_a_readable_local_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a"), "x").unwrap();
    let path = dir.path().display().to_string();
    let tried = try_it(&connection("folder", &path)).await.unwrap();
    assert_eq!(
        tried.message,
        format!("{path} is a readable directory with 1 entries")
    );

    let missing = format!("{path}/missing");
    match try_it(&connection("folder", &missing)).await {
        Err(ProbeError::Refused(message)) => {
            assert!(message.contains("No such file or directory"), "{message}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    match try_it(&connection("folder", "s3://bucket/prefix")).await {
        Err(ProbeError::Invalid {
            field: "url",
            message,
        }) => {
            assert!(message.contains("aws, s3 or gcs connection"), "{message}");
        }
        other => panic!("expected the path to be invalid, got {other:?}"),
    }
}

#[tokio::test]
async fn jmeter_connects_over_tcp() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut c = connection("jmeter", "127.0.0.1");
    c.properties.insert("port".into(), port.to_string());
    let tried = try_it(&c).await.unwrap();
    assert_eq!(
        tried.message,
        format!("127.0.0.1:{port} accepted a TCP connection")
    );
    drop(listener);
    match try_it(&c).await {
        Err(ProbeError::Refused(message)) => assert!(message.contains("refused"), "{message}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}
