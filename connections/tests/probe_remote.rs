//! Connection tests for directories, file transfer and clouds.
//!
//! Live servers (started by hack/test.sh or hack/with-servers.sh): slapd,
//! sshd, samba, an S3-compatible server and a GCS emulator. Services that
//! cannot run here (GitHub, GitLab, Azure, Azure DevOps, Dynatrace, Anthropic,
//! OpenAI, Ollama, AWS STS, Google's token endpoint) are tests against a
//! recorded conversation: a local server that checks the request is what the
//! service's documented API expects and answers with the recorded reply.

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::IntoResponse;
use quarterdeck_connections::Resolved;
use quarterdeck_connections::probe::{self, CloudEndpoints, Context, ProbeError};

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is not set: run these tests through hack/test.sh or hack/with-servers.sh")
    })
}

fn ctx() -> Context {
    Context {
        timeout: Duration::from_secs(10),
        ..Context::default()
    }
}

fn connection(kind: &str) -> Resolved {
    Resolved {
        kind: kind.into(),
        name: format!("default/{kind}"),
        ..Resolved::default()
    }
}

fn with(mut c: Resolved, properties: &[(&str, &str)]) -> Resolved {
    c.properties.extend(
        properties
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string())),
    );
    c
}

async fn refused(c: &Resolved, ctx: &Context) -> String {
    match probe::test(c, ctx).await {
        Err(ProbeError::Refused(message)) => message,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

// ---- LDAP (live slapd) ----

fn ldap(url: String, password: &str) -> Resolved {
    Resolved {
        url: Some(url),
        username: Some(env("QD_TEST_SLAPD_BIND_DN")),
        password: Some(password.into()),
        ..connection("ldap")
    }
}

#[tokio::test]
async fn ldap_binds_and_reports_who_it_is() {
    let c = ldap(env("QD_TEST_SLAPD_URL"), &env("QD_TEST_SLAPD_PASSWORD"));
    let tried = probe::test(&c, &ctx()).await.unwrap();
    assert!(
        tried
            .message
            .contains("as dn:cn=admin,dc=quarterdeck,dc=test"),
        "{}",
        tried.message
    );
}

#[tokio::test]
async fn ldap_wrong_password_is_the_servers_result_code() {
    let c = ldap(env("QD_TEST_SLAPD_URL"), "not-the-password");
    let message = refused(&c, &ctx()).await;
    assert!(
        message.contains("invalidCredentials (result code 49)"),
        "{message}"
    );
    assert!(!message.contains("not-the-password"), "{message}");
}

#[tokio::test]
async fn ldaps_with_a_self_signed_certificate_needs_insecure_tls() {
    let mut c = ldap(
        env("QD_TEST_SLAPD_LDAPS_URL"),
        &env("QD_TEST_SLAPD_PASSWORD"),
    );
    let message = refused(&c, &ctx()).await;
    assert!(message.contains("connecting to ldaps://"), "{message}");
    c.insecure_tls = true;
    let tried = probe::test(&c, &ctx()).await.unwrap();
    assert!(tried.message.contains("cn=admin"), "{}", tried.message);
}

// ---- S3, AWS and restic (live S3-compatible server) ----

fn s3_keys(kind: &str) -> Resolved {
    Resolved {
        url: Some(env("QD_TEST_S3_ENDPOINT")),
        username: Some("AKIAQUARTERDECKTEST".into()),
        password: Some("quarterdeck-secret-key".into()),
        ..connection(kind)
    }
}

#[tokio::test]
async fn s3_lists_the_bucket() {
    let c = with(s3_keys("s3"), &[("bucket", &env("QD_TEST_S3_BUCKET"))]);
    let tried = probe::test(&c, &ctx()).await.unwrap();
    assert!(
        tried
            .message
            .contains("listed bucket quarterdeck: 1 object(s)"),
        "{}",
        tried.message
    );
}

#[tokio::test]
async fn s3_missing_bucket_is_the_servers_error_code() {
    let c = with(s3_keys("s3"), &[("bucket", "no-such-bucket")]);
    let message = refused(&c, &ctx()).await;
    assert!(
        message.contains("HTTP 404 Not Found: NoSuchBucket"),
        "{message}"
    );
}

#[tokio::test]
async fn aws_with_an_endpoint_lists_buckets() {
    let tried = probe::test(&s3_keys("aws"), &ctx()).await.unwrap();
    assert!(
        tried
            .message
            .starts_with("1 bucket(s) at http://127.0.0.1:"),
        "{}",
        tried.message
    );
}

#[tokio::test]
async fn restic_finds_the_repository_config() {
    let endpoint = env("QD_TEST_S3_ENDPOINT");
    let bucket = env("QD_TEST_S3_BUCKET");
    let mut c = with(
        connection("restic"),
        &[
            ("secretKey", "quarterdeck-secret-key"),
            ("awsConnectionName", "aws"),
        ],
    );
    c.username = Some("AKIAQUARTERDECKTEST".into());
    c.password = Some("restic-password".into());
    c.url = Some(format!("s3:{endpoint}/{bucket}/restic"));
    let tried = probe::test(&c, &ctx()).await.unwrap();
    assert!(
        tried.message.contains("(config, 13 bytes)"),
        "{}",
        tried.message
    );
    c.url = Some(format!("s3:{endpoint}/{bucket}/elsewhere"));
    let message = refused(&c, &ctx()).await;
    assert!(
        message.contains("HTTP 404 Not Found: NoSuchKey"),
        "{message}"
    );
}

// ---- Recorded conversations ----

/// One request the service's documented API expects and the reply recorded
/// for it; a request with the wrong credentials gets the recorded refusal.
struct Exchange {
    method: Method,
    path_and_query: &'static str,
    /// A header that must start with this value (credentials).
    header: (&'static str, String),
    body_contains: &'static str,
    reply: (u16, String),
    refusal: (u16, String),
}

/// Serves `exchanges` on a free loopback port; answers its base URL.
async fn recorded(exchanges: Vec<Exchange>) -> String {
    let exchanges = Arc::new(exchanges);
    let app = Router::new().fallback(
        move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
            let exchanges = Arc::clone(&exchanges);
            async move {
                let path = uri.path_and_query().map(|p| p.as_str()).unwrap_or("");
                let body = String::from_utf8_lossy(&body);
                let Some(exchange) = exchanges
                    .iter()
                    .find(|e| e.method == method && e.path_and_query == path)
                else {
                    return (
                        StatusCode::IM_A_TEAPOT,
                        format!("unexpected {method} {path}"),
                    )
                        .into_response();
                };
                assert!(
                    body.contains(exchange.body_contains),
                    "{method} {path} body: {body}"
                );
                let (name, value) = &exchange.header;
                let sent = headers
                    .get(*name)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("");
                let (status, reply) = if sent.starts_with(value.as_str()) {
                    &exchange.reply
                } else {
                    &exchange.refusal
                };
                (StatusCode::from_u16(*status).unwrap(), reply.clone()).into_response()
            }
        },
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{address}")
}

fn token(kind: &str, base: &str, token: &str) -> Resolved {
    Resolved {
        url: Some(base.into()),
        password: Some(token.into()),
        ..connection(kind)
    }
}

#[tokio::test]
async fn github_user_against_a_recorded_conversation() {
    let base = recorded(vec![Exchange {
        method: Method::GET,
        path_and_query: "/user",
        header: ("authorization", "Bearer ghp_recorded".into()),
        body_contains: "",
        reply: (200, r#"{"login":"octocat","id":1,"type":"User"}"#.into()),
        refusal: (401, r#"{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest","status":"401"}"#.into()),
    }])
    .await;
    let tried = probe::test(&token("github", &base, "ghp_recorded"), &ctx())
        .await
        .unwrap();
    assert_eq!(tried.message, "authenticated as octocat");
    let message = refused(&token("github", &base, "ghp_wrong"), &ctx()).await;
    assert_eq!(message, "HTTP 401 Unauthorized: Bad credentials");
}

#[tokio::test]
async fn gitlab_user_against_a_recorded_conversation() {
    let base = recorded(vec![Exchange {
        method: Method::GET,
        path_and_query: "/api/v4/user",
        header: ("private-token", "glpat-recorded".into()),
        body_contains: "",
        reply: (
            200,
            r#"{"id":1,"username":"root","name":"Administrator"}"#.into(),
        ),
        refusal: (401, r#"{"message":"401 Unauthorized"}"#.into()),
    }])
    .await;
    let tried = probe::test(&token("gitlab", &base, "glpat-recorded"), &ctx())
        .await
        .unwrap();
    assert_eq!(tried.message, "authenticated as root");
    let message = refused(&token("gitlab", &format!("{base}/api/v4/"), "nope"), &ctx()).await;
    assert_eq!(message, "HTTP 401 Unauthorized: 401 Unauthorized");
}

#[tokio::test]
async fn azure_devops_projects_against_a_recorded_conversation() {
    // Basic auth with an empty user and the PAT: base64(":pat-recorded").
    let base = recorded(vec![Exchange {
        method: Method::GET,
        path_and_query: "/quarterdeck/_apis/projects?api-version=7.1",
        header: ("authorization", "Basic OnBhdC1yZWNvcmRlZA==".into()),
        body_contains: "",
        reply: (
            200,
            r#"{"count":2,"value":[{"name":"a"},{"name":"b"}]}"#.into(),
        ),
        refusal: (
            203,
            "<html><title>Azure DevOps Services | Sign In</title></html>".into(),
        ),
    }])
    .await;
    let context = Context {
        cloud: CloudEndpoints {
            azure_devops: base,
            ..CloudEndpoints::default()
        },
        ..ctx()
    };
    let mut c = with(
        connection("azure_devops"),
        &[("organization", "quarterdeck")],
    );
    c.password = Some("pat-recorded".into());
    let tried = probe::test(&c, &context).await.unwrap();
    assert_eq!(tried.message, "2 projects in quarterdeck");
    c.password = Some("pat-wrong".into());
    let message = refused(&c, &context).await;
    assert!(message.contains("sign-in page"), "{message}");
}

#[tokio::test]
async fn azure_client_credentials_against_a_recorded_conversation() {
    let base = recorded(vec![Exchange {
        method: Method::POST,
        path_and_query: "/tenant-1/oauth2/v2.0/token",
        header: ("content-type", "application/x-www-form-urlencoded".into()),
        body_contains: "grant_type=client_credentials&client_id=app-1&client_secret=",
        reply: (
            200,
            r#"{"token_type":"Bearer","expires_in":3599,"access_token":"eyJ0"}"#.into(),
        ),
        refusal: (400, "{}".into()),
    }])
    .await;
    let context = Context {
        cloud: CloudEndpoints {
            azure_login: base,
            ..CloudEndpoints::default()
        },
        ..ctx()
    };
    let mut c = with(connection("azure"), &[("tenantId", "tenant-1")]);
    c.username = Some("app-1".into());
    c.password = Some("client-secret".into());
    let tried = probe::test(&c, &context).await.unwrap();
    assert_eq!(
        tried.message,
        "Microsoft Entra ID issued a token to client app-1 in tenant tenant-1 (valid 3599s)"
    );
}

#[tokio::test]
async fn azure_wrong_secret_is_the_aadsts_error_against_a_recorded_conversation() {
    let base = recorded(vec![Exchange {
        method: Method::POST,
        path_and_query: "/tenant-1/oauth2/v2.0/token",
        header: ("content-type", "nothing-matches".into()),
        body_contains: "client_secret=wrong",
        reply: (200, String::new()),
        refusal: (401, r#"{"error":"invalid_client","error_description":"AADSTS7000215: Invalid client secret provided."}"#.into()),
    }])
    .await;
    let context = Context {
        cloud: CloudEndpoints {
            azure_login: base,
            ..CloudEndpoints::default()
        },
        ..ctx()
    };
    let mut c = with(connection("azure"), &[("tenantId", "tenant-1")]);
    c.username = Some("app-1".into());
    c.password = Some("wrong".into());
    let message = refused(&c, &context).await;
    assert_eq!(
        message,
        "HTTP 401 Unauthorized: AADSTS7000215: Invalid client secret provided."
    );
}

#[tokio::test]
async fn dynatrace_token_lookup_against_a_recorded_conversation() {
    let base = recorded(vec![Exchange {
        method: Method::POST,
        path_and_query: "/api/v2/apiTokens/lookup",
        header: ("authorization", "Api-Token dt0c01.recorded".into()),
        body_contains: r#"{"token":"dt0c01.recorded"}"#,
        reply: (200, r#"{"id":"dt0c01.ABC","name":"quarterdeck","enabled":true,"scopes":["metrics.read","entities.read"]}"#.into()),
        refusal: (401, r#"{"error":{"code":401,"message":"Token Authentication failed"}}"#.into()),
    }])
    .await;
    let host = base.trim_start_matches("http://").to_owned();
    let mut c = with(connection("dynatrace"), &[("scheme", "http")]);
    c.url = Some(host);
    c.password = Some("dt0c01.recorded".into());
    let tried = probe::test(&c, &ctx()).await.unwrap();
    assert_eq!(
        tried.message,
        "token quarterdeck accepted (scopes: metrics.read, entities.read)"
    );
}

#[tokio::test]
async fn anthropic_openai_and_ollama_models_against_a_recorded_conversation() {
    let base = recorded(vec![
        Exchange {
            method: Method::GET,
            path_and_query: "/v1/models",
            header: ("x-api-key", "sk-ant-recorded".into()),
            body_contains: "",
            reply: (200, r#"{"data":[{"type":"model","id":"claude-sonnet-4-5"}],"has_more":false}"#.into()),
            refusal: (401, r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#.into()),
        },
        Exchange {
            method: Method::GET,
            path_and_query: "/openai/v1/models",
            header: ("authorization", "Bearer sk-recorded".into()),
            body_contains: "",
            reply: (200, r#"{"object":"list","data":[{"id":"gpt-4o","object":"model"},{"id":"gpt-4o-mini","object":"model"}]}"#.into()),
            refusal: (401, r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#.into()),
        },
        Exchange {
            method: Method::GET,
            path_and_query: "/api/tags",
            header: ("authorization", "Bearer ollama-recorded".into()),
            body_contains: "",
            reply: (200, r#"{"models":[{"name":"llama3.2:latest","size":2019393189}]}"#.into()),
            refusal: (401, r#"{"error":"unauthorized"}"#.into()),
        },
    ])
    .await;
    let anthropic = with(
        token("anthropic", &base, "sk-ant-recorded"),
        &[("model", "claude-sonnet-4-5")],
    );
    assert_eq!(
        probe::test(&anthropic, &ctx()).await.unwrap().message,
        "1 models available, including claude-sonnet-4-5"
    );
    let message = refused(&token("anthropic", &base, "sk-ant-wrong"), &ctx()).await;
    assert_eq!(message, "HTTP 401 Unauthorized: invalid x-api-key");
    let openai = with(
        token("openai", &format!("{base}/openai/v1"), "sk-recorded"),
        &[("model", "o9")],
    );
    assert_eq!(
        probe::test(&openai, &ctx()).await.unwrap().message,
        "2 models available; o9 is not among them"
    );
    let message = refused(
        &token("openai", &format!("{base}/openai/v1"), "sk-x"),
        &ctx(),
    )
    .await;
    assert_eq!(message, "HTTP 401 Unauthorized: Incorrect API key provided");
    let ollama = token("ollama", &base, "ollama-recorded");
    assert_eq!(
        probe::test(&ollama, &ctx()).await.unwrap().message,
        "1 models available"
    );
}

#[tokio::test]
async fn aws_sts_get_caller_identity_against_a_recorded_conversation() {
    let base = recorded(vec![Exchange {
        method: Method::POST,
        path_and_query: "/",
        header: (
            "authorization",
            "AWS4-HMAC-SHA256 Credential=AKIARECORDED/".into(),
        ),
        body_contains: "Action=GetCallerIdentity&Version=2011-06-15",
        reply: (200, "<GetCallerIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><GetCallerIdentityResult><Arn>arn:aws:iam::123456789012:user/quarterdeck</Arn><UserId>AIDAEXAMPLE</UserId><Account>123456789012</Account></GetCallerIdentityResult></GetCallerIdentityResponse>".into()),
        refusal: (403, "<ErrorResponse><Error><Type>Sender</Type><Code>InvalidClientTokenId</Code><Message>The security token included in the request is invalid.</Message></Error></ErrorResponse>".into()),
    }])
    .await;
    let context = Context {
        cloud: CloudEndpoints {
            aws_sts: base,
            ..CloudEndpoints::default()
        },
        ..ctx()
    };
    let mut c = with(connection("aws"), &[("region", "eu-west-1")]);
    c.username = Some("AKIARECORDED".into());
    c.password = Some("secret".into());
    let tried = probe::test(&c, &context).await.unwrap();
    assert_eq!(
        tried.message,
        "authenticated as arn:aws:iam::123456789012:user/quarterdeck (account 123456789012)"
    );
    c.username = Some("AKIAOTHER".into());
    let message = refused(&c, &context).await;
    assert_eq!(
        message,
        "HTTP 403 Forbidden: InvalidClientTokenId: The security token included in the request is invalid."
    );
}

// ---- Google Cloud Storage: recorded token exchange, live emulator ----

fn openssl(args: &[&str]) -> Vec<u8> {
    let out = Command::new("openssl")
        .args(args)
        .output()
        .expect("openssl runs");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[tokio::test]
async fn gcs_token_exchange_against_a_recorded_conversation_then_lists_the_live_emulator() {
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let dir = tempfile::tempdir().unwrap();
    let key_path = dir.path().join("key.pem");
    let key_path = key_path.to_str().unwrap();
    openssl(&[
        "genpkey",
        "-algorithm",
        "RSA",
        "-pkeyopt",
        "rsa_keygen_bits:2048",
        "-out",
        key_path,
    ]);
    let private_key = std::fs::read_to_string(key_path).unwrap();
    let public_der = openssl(&[
        "rsa",
        "-in",
        key_path,
        "-RSAPublicKey_out",
        "-outform",
        "DER",
    ]);

    // Google's token endpoint: checks the grant type, the JWT's claims and its
    // RS256 signature with the account's public key, then issues a token.
    let app = Router::new().fallback(move |body: Bytes| {
        let public_der = public_der.clone();
        async move {
            let form: BTreeMap<String, String> =
                url::form_urlencoded::parse(&body).into_owned().collect();
            assert_eq!(
                form["grant_type"],
                "urn:ietf:params:oauth:grant-type:jwt-bearer"
            );
            let parts: Vec<&str> = form["assertion"].split('.').collect();
            let claims: serde_json::Value =
                serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
            assert_eq!(
                claims["iss"],
                "probe@quarterdeck-test.iam.gserviceaccount.com"
            );
            assert_eq!(
                claims["scope"],
                "https://www.googleapis.com/auth/devstorage.read_only"
            );
            let signature = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
            let verified = ring::signature::UnparsedPublicKey::new(
                &ring::signature::RSA_PKCS1_2048_8192_SHA256,
                &public_der,
            )
            .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature);
            if verified.is_err() {
                return (
                    StatusCode::BAD_REQUEST,
                    r#"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#,
                )
                    .into_response();
            }
            (
                StatusCode::OK,
                r#"{"access_token":"ya29.recorded","expires_in":3599,"token_type":"Bearer"}"#,
            )
                .into_response()
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let token_uri = format!("http://{}/token", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let credentials = serde_json::json!({
        "type": "service_account",
        "project_id": "quarterdeck-test",
        "private_key_id": "1",
        "private_key": private_key,
        "client_email": "probe@quarterdeck-test.iam.gserviceaccount.com",
        "token_uri": token_uri,
    });
    let mut c = connection("gcs");
    c.url = Some(env("QD_TEST_GCS_ENDPOINT"));
    c.certificate = Some(credentials.to_string());
    let tried = probe::test(&c, &ctx()).await.unwrap();
    assert_eq!(
        tried.message,
        "authenticated as probe@quarterdeck-test.iam.gserviceaccount.com; 1 bucket(s) in project quarterdeck-test"
    );

    // A key that is not the account's: Google's own refusal.
    let other_path = dir.path().join("other.pem");
    let other_path = other_path.to_str().unwrap();
    openssl(&[
        "genpkey",
        "-algorithm",
        "RSA",
        "-pkeyopt",
        "rsa_keygen_bits:2048",
        "-out",
        other_path,
    ]);
    let mut wrong = credentials.clone();
    wrong["private_key"] = std::fs::read_to_string(other_path).unwrap().into();
    c.certificate = Some(wrong.to_string());
    let message = refused(&c, &ctx()).await;
    assert!(message.ends_with(": Invalid JWT Signature."), "{message}");
}

#[tokio::test]
async fn windows_holds_credentials_only() {
    let mut c = connection("windows");
    c.username = Some("administrator".into());
    match probe::test(&c, &ctx()).await {
        Err(ProbeError::Unsupported(message)) => {
            assert!(message.contains("credentials only"), "{message}")
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

// ---- SFTP (live sshd) ----

fn sftp(password: &str) -> Resolved {
    with(
        Resolved {
            url: Some(env("QD_TEST_SSHD_HOST")),
            username: Some(env("QD_TEST_SSHD_USER")),
            password: Some(password.into()),
            ..connection("sftp")
        },
        &[("port", &env("QD_TEST_SSHD_PORT"))],
    )
}

#[tokio::test]
async fn sftp_logs_in_and_reports_the_home_and_host_key() {
    let tried = probe::test(&sftp(&env("QD_TEST_SSHD_PASSWORD")), &ctx())
        .await
        .unwrap();
    assert!(
        tried.message.contains("SFTP home /home/qd-sftp"),
        "{}",
        tried.message
    );
    assert!(
        tried
            .message
            .ends_with(&format!("host key {}", env("QD_TEST_SSHD_FINGERPRINT"))),
        "{}",
        tried.message
    );
}

#[tokio::test]
async fn sftp_wrong_password_is_refused() {
    let message = refused(&sftp("not-the-password"), &ctx()).await;
    assert!(
        message.contains("refused the password of qd-sftp"),
        "{message}"
    );
    assert!(!message.contains("not-the-password"), "{message}");
}
