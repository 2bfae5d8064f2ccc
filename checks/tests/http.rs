//! `http` checks against a local axum server, and against a TLS server with generated certificates.

mod common;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{any, get};
use chrono::Datelike;
use common::{assert_failed_with, assert_passed, run, serve};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_rustls::TlsAcceptor;

async fn app() -> String {
    let router = Router::new()
        .route("/ok", get(|| async { "hello world" }))
        .route(
            "/status/{code}",
            get(|Path(code): Path<u16>| async move {
                (
                    StatusCode::from_u16(code).unwrap_or(StatusCode::IM_A_TEAPOT),
                    "status",
                )
            }),
        )
        .route(
            "/json",
            get(|| async {
                axum::Json(json!({"status": "ok", "items": [1, 2, 3], "nested": {"n": 5}}))
            }),
        )
        .route(
            "/headers",
            get(|headers: HeaderMap| async move {
                headers
                    .get("x-token")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("none")
                    .to_owned()
            }),
        )
        .route(
            "/echo",
            any(|method: Method, body: String| async move { format!("{method} {body}") }),
        )
        .route(
            "/basic",
            get(|headers: HeaderMap| async move {
                // user:pass
                if headers.get("authorization").and_then(|v| v.to_str().ok())
                    == Some("Basic dXNlcjpwYXNz")
                {
                    (StatusCode::OK, "welcome")
                } else {
                    (StatusCode::UNAUTHORIZED, "who are you")
                }
            }),
        )
        .route(
            "/redirect/{hops}",
            get(|Path(hops): Path<u32>| async move {
                match hops.checked_sub(1) {
                    None => "landed".into_response(),
                    Some(next) => (
                        StatusCode::FOUND,
                        [("location", format!("/redirect/{next}"))],
                        "moved",
                    )
                        .into_response(),
                }
            }),
        )
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_millis(300)).await;
                "finally"
            }),
        );
    serve(router).await
}

#[tokio::test]
async fn plain_get_passes_and_reports_details() {
    let base = app().await;
    let outcome = run("http", json!({"name": "ok", "url": format!("{base}/ok")})).await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["code"], 200);
    assert_eq!(outcome.details["content"], "hello world");
    assert!(outcome.details["elapsed"].is_u64());
    assert!(outcome.details.get("sslAge").is_none());
    assert!(outcome.message.starts_with("200 OK"), "{}", outcome.message);
}

#[tokio::test]
async fn response_codes() {
    let base = app().await;
    let outcome = run(
        "http",
        json!({"name": "c", "url": format!("{base}/status/500")}),
    )
    .await;
    assert_failed_with(&outcome, "response code 500 is not 2xx or 3xx");
    let outcome = run(
        "http",
        json!({"name": "c", "url": format!("{base}/status/404"), "responseCodes": [404]}),
    )
    .await;
    assert_passed(&outcome);
    let outcome = run(
        "http",
        json!({"name": "c", "url": format!("{base}/ok"), "responseCodes": [201, 202]}),
    )
    .await;
    assert_failed_with(&outcome, "response code 200 is not one of [201, 202]");
}

#[tokio::test]
async fn response_content() {
    let base = app().await;
    let spec = |content: &str| json!({"name": "c", "url": format!("{base}/ok"), "responseContent": content});
    assert_passed(&run("http", spec("world")).await);
    assert_failed_with(
        &run("http", spec("goodbye")).await,
        "does not contain \"goodbye\"",
    );
}

#[tokio::test]
async fn response_json_content() {
    let base = app().await;
    let spec = |path: &str, value: &str| {
        json!({"name": "j", "url": format!("{base}/json"),
               "responseJSONContent": {"path": path, "value": value}})
    };
    assert_passed(&run("http", spec("$.status", "ok")).await);
    assert_passed(&run("http", spec("$.nested.n", "5")).await);
    assert_failed_with(
        &run("http", spec("$.status", "down")).await,
        "expected \"down\"",
    );
    assert_failed_with(
        &run("http", spec("$.missing", "x")).await,
        "matched nothing",
    );
    let outcome = run(
        "http",
        json!({"name": "j", "url": format!("{base}/ok"),
        "responseJSONContent": {"path": "$.status", "value": "ok"}}),
    )
    .await;
    assert_failed_with(&outcome, "not JSON");
}

#[tokio::test]
async fn headers_from_values_and_secrets() {
    let base = app().await;
    let outcome = run(
        "http",
        json!({"name": "h", "url": format!("{base}/headers"), "responseContent": "t0ken",
               "headers": [{"name": "X-Token", "value": "t0ken"}]}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["content"], "t0ken");
}

#[tokio::test]
async fn post_body() {
    let base = app().await;
    let outcome = run(
        "http",
        json!({"name": "p", "url": format!("{base}/echo"), "method": "post", "body": "{\"a\":1}"}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["content"], "POST {\"a\":1}");
    assert_eq!(outcome.details["method"], "POST");
}

#[tokio::test]
async fn basic_auth_from_username_and_password() {
    let base = app().await;
    let outcome = run(
        "http",
        json!({"name": "b", "url": format!("{base}/basic"),
               "username": {"value": "user"}, "password": {"value": "pass"}}),
    )
    .await;
    assert_passed(&outcome);
    let outcome = run(
        "http",
        json!({"name": "b", "url": format!("{base}/basic"),
               "username": {"value": "user"}, "password": {"value": "wrong"}}),
    )
    .await;
    assert_failed_with(&outcome, "response code 401");
}

#[tokio::test]
async fn threshold_millis() {
    let base = app().await;
    let outcome = run(
        "http",
        json!({"name": "s", "url": format!("{base}/slow"), "thresholdMillis": 100}),
    )
    .await;
    assert_failed_with(&outcome, "more than thresholdMillis 100");
    let outcome = run(
        "http",
        json!({"name": "s", "url": format!("{base}/slow"), "thresholdMillis": 5000}),
    )
    .await;
    assert_passed(&outcome);
}

#[tokio::test]
async fn connection_refused_is_a_failure() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let outcome = run(
        "http",
        json!({"name": "r", "url": format!("http://{addr}/")}),
    )
    .await;
    assert_failed_with(&outcome, "GET http://");
}

struct TlsServer {
    url: String,
    ca_pem: String,
}

/// An HTTPS server answering `ok` with a leaf certificate (for 127.0.0.1)
/// signed by a generated CA, valid for about `days` more days.
async fn tls_server(days: u64) -> TlsServer {
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();

    let mut leaf_params = CertificateParams::new(vec!["127.0.0.1".to_owned()]).unwrap();
    // Midnight after `days` more days: between `days` and `days + 1` days left.
    let expiry = chrono::Utc::now().date_naive() + chrono::Days::new(days + 1);
    leaf_params.not_after = rcgen::date_time_ymd(
        expiry.year(),
        u8::try_from(expiry.month()).unwrap(),
        u8::try_from(expiry.day()).unwrap(),
    );
    let leaf_key = KeyPair::generate().unwrap();
    let leaf = leaf_params.signed_by(&leaf_key, &ca).unwrap();

    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![leaf.der().clone(), CertificateDer::from(ca.der().to_vec())],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der())),
        )
        .unwrap();
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                // A client that rejects the certificate ends the handshake: fine.
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let mut request = Vec::new();
                let mut buffer = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match tls.read(&mut buffer).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buffer[..n]),
                    }
                }
                let _ = tls
                    .write_all(
                        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
                    )
                    .await;
                let _ = tls.shutdown().await;
            });
        }
    });
    TlsServer {
        url: format!("https://{addr}/"),
        ca_pem: ca.pem(),
    }
}

#[tokio::test]
async fn tls_untrusted_certificate_is_rejected_by_default() {
    let server = tls_server(90).await;
    let outcome = run("http", json!({"name": "t", "url": server.url})).await;
    assert!(!outcome.passed, "{outcome:#?}");
    let error = outcome.error.unwrap_or_default().to_lowercase();
    assert!(error.contains("certificate"), "{error}");
}

#[tokio::test]
async fn tls_insecure_skip_verify_accepts_and_reports_expiry() {
    let server = tls_server(90).await;
    let outcome = run(
        "http",
        json!({"name": "t", "url": server.url, "tlsConfig": {"insecureSkipVerify": true}}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["sslAge"], 90);
    assert!(outcome.details["sslExpiry"].is_string());
}

#[tokio::test]
async fn tls_with_the_ca_given_verifies() {
    let server = tls_server(30).await;
    let outcome = run(
        "http",
        json!({"name": "t", "url": server.url, "tlsConfig": {"ca": server.ca_pem}, "responseContent": "ok"}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["sslAge"], 30);
}

#[tokio::test]
async fn tls_ca_can_come_from_a_secret() {
    let server = tls_server(30).await;
    let lookup = quarterdeck_checks::StaticLookup::new().with_secret(
        "default",
        "tls",
        "ca.crt",
        &server.ca_pem,
    );
    let spec = json!({"name": "t", "url": server.url,
        "tlsConfig": {"ca": {"valueFrom": {"secretKeyRef": {"name": "tls", "key": "ca.crt"}}}}});
    let outcome = quarterdeck_checks::run("http", &spec, &common::context(lookup)).await;
    assert_passed(&outcome);
}

/// Runs share HTTP clients only when every setting that shapes one is the
/// same: trust given to one check never reaches another.
#[tokio::test]
async fn tls_settings_do_not_leak_between_checks() {
    let server = tls_server(30).await;
    let check = |tls: serde_json::Value| json!({"name": "t", "url": server.url, "tlsConfig": tls});
    for _ in 0..2 {
        assert_passed(&run("http", check(json!({"insecureSkipVerify": true}))).await);
        assert!(!run("http", check(json!({}))).await.passed);
        assert_passed(&run("http", check(json!({"ca": server.ca_pem}))).await);
        let other = tls_server(30).await;
        let wrong_ca = json!({"name": "t", "url": server.url, "tlsConfig": {"ca": other.ca_pem}});
        assert!(!run("http", wrong_ca).await.passed);
        assert!(
            !run("http", json!({"name": "t", "url": server.url}))
                .await
                .passed
        );
    }
}

#[tokio::test]
async fn max_ssl_expiry() {
    let server = tls_server(10).await;
    let outcome = run(
        "http",
        json!({"name": "t", "url": server.url, "maxSSLExpiry": 30,
               "tlsConfig": {"insecureSkipVerify": true}}),
    )
    .await;
    assert_failed_with(&outcome, "expires in 10 days, within maxSSLExpiry 30");
    let outcome = run(
        "http",
        json!({"name": "t", "url": server.url, "maxSSLExpiry": 7,
               "tlsConfig": {"insecureSkipVerify": true}}),
    )
    .await;
    assert_passed(&outcome);
}

#[tokio::test]
async fn max_redirects_limits_the_redirects_followed() {
    let base = app().await;
    let spec = |hops: u32, limit: Option<i32>| {
        let mut spec = json!({"name": "r", "url": format!("{base}/redirect/{hops}")});
        if let Some(limit) = limit {
            spec["maxRedirects"] = json!(limit);
        }
        spec
    };
    // 0: no redirect is followed; the 3xx is the answer (and passes as a 3xx).
    let outcome = run("http", spec(1, Some(0))).await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["code"], 302);
    assert_eq!(outcome.details["headers"]["location"], "/redirect/0");

    let outcome = run("http", spec(3, Some(3))).await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["content"], "landed");

    let outcome = run("http", spec(3, Some(2))).await;
    assert_failed_with(&outcome, "too many redirects");

    // Unset: the client's default (10) applies.
    let outcome = run("http", spec(5, None)).await;
    assert_eq!(outcome.details["content"], "landed");
    assert_failed_with(&run("http", spec(11, None)).await, "too many redirects");
}

#[tokio::test]
async fn optional_secret_keys_resolve_to_empty() {
    let base = app().await;
    let header = |optional: Option<bool>| {
        let mut key = json!({"name": "absent", "key": "token"});
        if let Some(optional) = optional {
            key["optional"] = json!(optional);
        }
        json!({"name": "h", "url": format!("{base}/headers"),
               "headers": [{"name": "X-Token", "valueFrom": {"secretKeyRef": key}}]})
    };
    let outcome = run("http", header(Some(true))).await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["content"], "");

    let outcome = run("http", header(Some(false))).await;
    assert_failed_with(&outcome, "secret default/absent has no key \"token\"");
    let outcome = run("http", header(None)).await;
    assert_failed_with(&outcome, "has no key");

    let config_map = json!({"name": "h", "url": format!("{base}/headers"),
        "headers": [{"name": "X-Token",
                     "valueFrom": {"configMapKeyRef": {"name": "absent", "key": "k", "optional": true}}}]});
    let outcome = run("http", config_map).await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["content"], "");
}
