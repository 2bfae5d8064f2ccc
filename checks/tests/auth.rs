//! Digest and AWS SigV4 authentication of `http` and `prometheus` checks, against
//! local servers that verify what they receive with their own implementation.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{OriginalUri, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use chrono::{NaiveDateTime, Utc};
use common::{assert_failed_with, assert_passed, context, run, serve};
use quarterdeck_checks::StaticLookup;
use ring::{digest, hmac};
use serde_json::json;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `key=value` and `key="value"` pairs of an Authorization header, after its scheme.
fn params(header: &str) -> BTreeMap<String, String> {
    let (_, rest) = header.split_once(' ').unwrap_or(("", header));
    let mut out = BTreeMap::new();
    let mut rest = rest.trim();
    while let Some((key, after)) = rest.split_once('=') {
        let key = key.trim().trim_start_matches(',').trim().to_owned();
        let (value, remainder) = if let Some(quoted) = after.strip_prefix('"') {
            let end = quoted.find('"').unwrap();
            (quoted[..end].to_owned(), &quoted[end + 1..])
        } else {
            let end = after.find(',').unwrap_or(after.len());
            (after[..end].trim().to_owned(), &after[end..])
        };
        out.insert(key, value);
        rest = remainder.trim_start_matches(',').trim();
    }
    out
}

// ---- Digest ----

const NONCE: &str = "dcd98b7102dd2f0e8b11d0f600bfb0c093";

struct DigestServer {
    algorithm: &'static str,
    challenges: AtomicUsize,
}

fn digest_hash(algorithm: &str, data: &str) -> String {
    if algorithm.starts_with("SHA-256") {
        hex(digest::digest(&digest::SHA256, data.as_bytes()).as_ref())
    } else {
        use md5::Digest as _;
        hex(&md5::Md5::digest(data.as_bytes()))
    }
}

/// Answers 401 with a challenge, or 200 when the response hash is the one
/// expected for user `Mufasa` with password `Circle Of Life`.
async fn digest_protected(
    State(server): State<Arc<DigestServer>>,
    method: Method,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
) -> Response {
    let challenge = || {
        server.challenges.fetch_add(1, Ordering::SeqCst);
        (
            StatusCode::UNAUTHORIZED,
            [(
                "www-authenticate",
                format!(
                    r#"Digest realm="checks@test", qop="auth", nonce="{NONCE}", opaque="xyz", algorithm={}"#,
                    server.algorithm
                ),
            )],
            "who are you",
        )
            .into_response()
    };
    let Some(header) = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .filter(|h| h.starts_with("Digest "))
    else {
        return challenge();
    };
    let p = params(header);
    let alg = server.algorithm;
    let field = |k: &str| p.get(k).cloned().unwrap_or_default();
    let mut ha1 = digest_hash(alg, "Mufasa:checks@test:Circle Of Life");
    if alg.ends_with("-sess") {
        ha1 = digest_hash(alg, &format!("{ha1}:{NONCE}:{}", field("cnonce")));
    }
    let ha2 = digest_hash(alg, &format!("{method}:{uri}"));
    let expected = digest_hash(
        alg,
        &format!(
            "{ha1}:{NONCE}:{}:{}:{}:{ha2}",
            field("nc"),
            field("cnonce"),
            field("qop")
        ),
    );
    let ok = field("username") == "Mufasa"
        && field("uri") == uri.to_string()
        && field("opaque") == "xyz"
        && field("qop") == "auth"
        && field("response") == expected;
    if ok && uri.path().ends_with("/api/v1/query") {
        axum::Json(json!({
            "status": "success",
            "data": {"resultType": "scalar", "result": [1.0, "7"]}
        }))
        .into_response()
    } else if ok {
        (StatusCode::OK, format!("welcome {method}")).into_response()
    } else {
        challenge()
    }
}

async fn digest_server(algorithm: &'static str) -> (String, Arc<DigestServer>) {
    let state = Arc::new(DigestServer {
        algorithm,
        challenges: AtomicUsize::new(0),
    });
    let router = Router::new()
        .route("/protected", any(digest_protected))
        .route("/api/v1/query", any(digest_protected))
        .with_state(Arc::clone(&state));
    (serve(router).await, state)
}

fn digest_spec(url: String, password: &str) -> serde_json::Value {
    json!({"name": "digest", "url": url, "digest": true,
           "username": {"value": "Mufasa"}, "password": {"value": password}})
}

#[tokio::test]
async fn http_digest_md5_and_sha_256_answer_the_challenge() {
    for algorithm in ["MD5", "SHA-256", "SHA-256-sess"] {
        let (base, server) = digest_server(algorithm).await;
        let outcome = run(
            "http",
            digest_spec(format!("{base}/protected?x=1"), "Circle Of Life"),
        )
        .await;
        assert_passed(&outcome);
        assert_eq!(outcome.details["content"], "welcome GET", "{algorithm}");
        assert_eq!(server.challenges.load(Ordering::SeqCst), 1, "{algorithm}");
    }
}

#[tokio::test]
async fn http_digest_with_a_body_and_a_wrong_password() {
    let (base, _) = digest_server("SHA-256").await;
    let mut spec = digest_spec(format!("{base}/protected"), "Circle Of Life");
    spec["method"] = json!("POST");
    spec["body"] = json!("{\"a\": 1}");
    let outcome = run("http", spec).await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["content"], "welcome POST");

    let outcome = run(
        "http",
        digest_spec(format!("{base}/protected"), "wrong password"),
    )
    .await;
    assert_failed_with(&outcome, "response code 401");
}

#[tokio::test]
async fn digest_needs_a_username() {
    let (base, _) = digest_server("MD5").await;
    let outcome = run(
        "http",
        json!({"name": "d", "url": format!("{base}/protected"), "digest": true}),
    )
    .await;
    assert_failed_with(&outcome, "digest authentication needs a username");
}

// ---- AWS SigV4 ----

const ACCESS_KEY: &str = "AKIDTESTING";
const SECRET_KEY: &str = "server-side/secret+key";

fn uri_encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Recomputes the signature of a request from what arrived: the signed
/// headers as received, the body's hash, the credential scope of the header.
fn verify_sigv4(
    method: &Method,
    uri: &axum::http::Uri,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(), String> {
    let header = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .ok_or("no authorization")?;
    let rest = header
        .strip_prefix("AWS4-HMAC-SHA256 ")
        .ok_or("not AWS4-HMAC-SHA256")?;
    let fields: BTreeMap<&str, &str> = rest
        .split(", ")
        .filter_map(|part| part.split_once('='))
        .collect();
    let credential: Vec<&str> = fields["Credential"].split('/').collect();
    let [access_key, date, region, service, "aws4_request"] = credential[..] else {
        return Err(format!("bad credential {credential:?}"));
    };
    if access_key != ACCESS_KEY {
        return Err("unknown access key".into());
    }
    let amz_date = headers["x-amz-date"].to_str().map_err(|e| e.to_string())?;
    let sent = NaiveDateTime::parse_from_str(amz_date, "%Y%m%dT%H%M%SZ")
        .map_err(|e| e.to_string())?
        .and_utc();
    if (Utc::now() - sent).num_minutes().abs() > 5 || !amz_date.starts_with(date) {
        return Err("stale or mismatched date".into());
    }
    let signed_headers = fields["SignedHeaders"];
    let canonical_headers: String = signed_headers
        .split(';')
        .map(|name| {
            let value = headers
                .get_all(name)
                .iter()
                .map(|v| {
                    let text = v.to_str().unwrap_or("");
                    text.split_whitespace().collect::<Vec<_>>().join(" ")
                })
                .collect::<Vec<_>>()
                .join(",");
            format!("{name}:{value}\n")
        })
        .collect();
    if !signed_headers.split(';').any(|h| h == "host") {
        return Err("host is not signed".into());
    }
    let path: String = uri
        .path()
        .split('/')
        .map(uri_encode)
        .collect::<Vec<_>>()
        .join("/");
    let mut query: Vec<String> = uri
        .query()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let decode = |s: &str| {
                url::form_urlencoded::parse(format!("x={s}").as_bytes())
                    .next()
                    .map(|(_, v)| v.into_owned())
                    .unwrap_or_default()
            };
            format!("{}={}", uri_encode(&decode(k)), uri_encode(&decode(v)))
        })
        .collect();
    query.sort();
    let canonical = format!(
        "{method}\n{path}\n{}\n{canonical_headers}\n{signed_headers}\n{}",
        query.join("&"),
        hex(digest::digest(&digest::SHA256, body).as_ref())
    );
    let string_to_sign = format!(
        "AWS4-HMAC-SHA256\n{amz_date}\n{date}/{region}/{service}/aws4_request\n{}",
        hex(digest::digest(&digest::SHA256, canonical.as_bytes()).as_ref())
    );
    let mut key = format!("AWS4{SECRET_KEY}").into_bytes();
    for part in [date, region, service, "aws4_request"] {
        key = hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, &key), part.as_bytes())
            .as_ref()
            .to_vec();
    }
    let signature = hex(hmac::sign(
        &hmac::Key::new(hmac::HMAC_SHA256, &key),
        string_to_sign.as_bytes(),
    )
    .as_ref());
    if signature == fields["Signature"] {
        Ok(())
    } else {
        Err(format!(
            "signature mismatch; canonical request:\n{canonical}"
        ))
    }
}

async fn sigv4_protected(
    method: Method,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    match verify_sigv4(&method, &uri, &headers, &body) {
        Ok(()) if uri.path().ends_with("/api/v1/query") => axum::Json(json!({
            "status": "success",
            "data": {"resultType": "vector", "result": [{"metric": {"job": "signed"}, "value": [1.0, "1"]}]}
        }))
        .into_response(),
        Ok(()) => (StatusCode::OK, "signed").into_response(),
        Err(why) => (StatusCode::FORBIDDEN, why).into_response(),
    }
}

async fn sigv4_server() -> String {
    serve(Router::new().fallback(any(sigv4_protected))).await
}

fn aws(secret: &str) -> serde_json::Value {
    json!({"accessKey": {"value": ACCESS_KEY}, "secretKey": {"value": secret},
           "region": "eu-west-1", "service": "execute-api"})
}

#[tokio::test]
async fn http_sigv4_is_verified_by_the_server() {
    let base = sigv4_server().await;
    let outcome = run(
        "http",
        json!({"name": "aws", "url": format!("{base}/prod/items/a%20b?b=2&a=x%2Fy&empty="),
               "method": "POST", "body": "{\"id\": 1}",
               "headers": [{"name": "Content-Type", "value": "application/json"},
                           {"name": "X-Custom", "value": "  spaced   value "}],
               "awsSigV4": aws(SECRET_KEY)}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["content"], "signed");

    let outcome = run(
        "http",
        json!({"name": "aws", "url": format!("{base}/prod"), "awsSigV4": aws("not the key")}),
    )
    .await;
    assert_failed_with(&outcome, "response code 403");
}

#[tokio::test]
async fn the_sigv4_secret_key_never_reaches_the_outcome() {
    let base = sigv4_server().await;
    let lookup = StaticLookup::new().with_secret("default", "aws", "secret", SECRET_KEY);
    let spec = json!({"name": "aws", "url": format!("{base}/prod"),
        "display": {"expr": format!("'key ' + '{SECRET_KEY}'")},
        "awsSigV4": {"accessKey": {"value": ACCESS_KEY},
                     "secretKey": {"valueFrom": {"secretKeyRef": {"name": "aws", "key": "secret"}}},
                     "region": "eu-west-1", "service": "execute-api"}});
    let outcome = quarterdeck_checks::run("http", &spec, &context(lookup)).await;
    assert_passed(&outcome);
    assert_eq!(outcome.message, "key ***");
}

#[tokio::test]
async fn sigv4_needs_its_fields_and_refuses_what_it_cannot_do() {
    let base = sigv4_server().await;
    let mut partial = aws(SECRET_KEY);
    partial.as_object_mut().unwrap().remove("region");
    let outcome = run(
        "http",
        json!({"name": "aws", "url": base, "awsSigV4": partial}),
    )
    .await;
    assert_failed_with(&outcome, "awsSigV4 needs a region");

    let mut assume = aws(SECRET_KEY);
    assume["assumeRole"] = json!("arn:aws:iam::123456789012:role/reader");
    let outcome = run(
        "http",
        json!({"name": "aws", "url": base, "awsSigV4": assume}),
    )
    .await;
    assert_failed_with(&outcome, "awsSigV4.assumeRole is not supported");

    let outcome = run(
        "http",
        json!({"name": "aws", "url": base, "awsSigV4": aws(SECRET_KEY), "digest": true,
               "username": {"value": "u"}}),
    )
    .await;
    assert_failed_with(&outcome, "digest and awsSigV4 cannot be combined");
}

// ---- The same module for prometheus ----

#[tokio::test]
async fn prometheus_digest_and_sigv4() {
    let (base, server) = digest_server("MD5").await;
    let mut spec = digest_spec(base, "Circle Of Life");
    spec["query"] = json!("up");
    let outcome = run("prometheus", spec).await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["value"], 7.0);
    assert_eq!(server.challenges.load(Ordering::SeqCst), 1);

    let base = sigv4_server().await;
    let mut signing = aws(SECRET_KEY);
    signing["service"] = json!("aps");
    let outcome = run(
        "prometheus",
        json!({"name": "amp", "url": format!("{base}/workspaces/ws-1"), "query": "sum(up) by (job)",
               "awsSigV4": signing}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["results"][0]["job"], "signed");
}

#[tokio::test]
async fn ntlm_fails_clearly_for_both_kinds() {
    for (check_type, extra) in [
        ("http", json!({"ntlm": true})),
        ("http", json!({"ntlmv2": true})),
        ("prometheus", json!({"ntlm": true, "query": "up"})),
        ("prometheus", json!({"ntlmv2": true, "query": "up"})),
    ] {
        let mut spec = json!({"name": "n", "url": "http://127.0.0.1:9",
                              "username": {"value": "u"}, "password": {"value": "p"}});
        spec.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let outcome = run(check_type, spec).await;
        assert_failed_with(&outcome, "NTLM authentication is not supported");
    }
}
