//! Object stores and clouds: S3 (and S3-compatible servers), AWS, restic
//! repositories on S3, and Google Cloud Storage.
//!
//! - s3: a SigV4-signed ListObjectsV2 of the bucket (one key).
//! - aws: ListBuckets at the endpoint when there is one, else STS
//!   GetCallerIdentity (who the keys belong to).
//! - restic: the repository's `config` object (`s3:` repositories only).
//! - gcs, google_cloud: the service account's OAuth2 token (a signed JWT
//!   exchanged at its `token_uri`), then the project's buckets.

use chrono::Utc;
use reqwest::{Client, Method, StatusCode};
use ring::rand::SystemRandom;
use ring::signature::{RSA_PKCS1_SHA256, RsaKeyPair};
use rustls::pki_types::PrivatePkcs8KeyDer;
use rustls::pki_types::pem::PemObject;
use serde_json::Value;
use url::Url;

use super::apis::{client, send, service_error};
use super::{Context, ProbeError, Tried};
use crate::Resolved;
use crate::sigv4::{self, Credentials};

const DEFAULT_REGION: &str = "us-east-1";

pub(super) async fn test(c: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    let client = client(c.insecure_tls)?;
    match c.kind.as_str() {
        "s3" => s3(c, ctx, &client).await,
        "aws" => aws(c, ctx, &client).await,
        "restic" => restic(c, ctx, &client).await,
        _ => gcs(c, ctx, &client).await,
    }
}

async fn s3(c: &Resolved, ctx: &Context, client: &Client) -> Result<Tried, ProbeError> {
    let bucket = c.property("bucket").ok_or(ProbeError::missing("bucket"))?;
    let credentials = keys(c, c.password.as_deref(), "password", "s3")?;
    let url = parse(&format!(
        "{}/{bucket}?list-type=2&max-keys=1",
        s3_endpoint(c.url.as_deref(), &credentials.region)
    ))?;
    let listing = signed(ctx, client, &credentials, Method::GET, url, "").await?;
    let count = element(&listing, "KeyCount").unwrap_or("0");
    Ok(Tried::new(format!(
        "listed bucket {bucket}: {count} object(s) in the first page of one"
    )))
}

async fn aws(c: &Resolved, ctx: &Context, client: &Client) -> Result<Tried, ProbeError> {
    if let Some(endpoint) = c.url.as_deref().filter(|u| !u.trim().is_empty()) {
        let credentials = keys(c, c.password.as_deref(), "password", "s3")?;
        let url = parse(&format!("{}/", endpoint.trim().trim_end_matches('/')))?;
        let listing = signed(ctx, client, &credentials, Method::GET, url, "").await?;
        let buckets = listing.matches("<Bucket>").count();
        return Ok(Tried::new(format!("{buckets} bucket(s) at {endpoint}")));
    }
    let mut credentials = keys(c, c.password.as_deref(), "password", "sts")?;
    // The global STS endpoint signs in us-east-1 whatever the connection's region.
    credentials.region = DEFAULT_REGION.into();
    let url = parse(&format!("{}/", ctx.cloud.aws_sts.trim_end_matches('/')))?;
    let body = "Action=GetCallerIdentity&Version=2011-06-15";
    let identity = signed(ctx, client, &credentials, Method::POST, url, body).await?;
    Ok(Tried::new(format!(
        "authenticated as {} (account {})",
        element(&identity, "Arn").unwrap_or("?"),
        element(&identity, "Account").unwrap_or("?")
    )))
}

async fn restic(c: &Resolved, ctx: &Context, client: &Client) -> Result<Tried, ProbeError> {
    let repository = c
        .url
        .as_deref()
        .filter(|u| !u.is_empty())
        .ok_or(ProbeError::missing("url"))?;
    let Some(location) = repository.strip_prefix("s3:") else {
        return Err(ProbeError::Unsupported(format!(
            "only s3: restic repositories can be tried from here, not {repository}"
        )));
    };
    let location = if location.contains("://") {
        location.to_owned()
    } else {
        format!("https://{location}")
    };
    let credentials = keys(c, c.property("secretKey"), "secretKey", "s3")?;
    let url = parse(&format!("{}/config", location.trim_end_matches('/')))?;
    let config = signed(ctx, client, &credentials, Method::GET, url, "").await?;
    Ok(Tried::new(format!(
        "found the restic repository at {repository} (config, {} bytes)",
        config.len()
    )))
}

/// The access key (username), the secret key from `secret_field`, and the
/// connection's region, signing for `service`.
fn keys(
    c: &Resolved,
    secret: Option<&str>,
    secret_field: &'static str,
    service: &str,
) -> Result<Credentials, ProbeError> {
    Ok(Credentials {
        access_key: c
            .username
            .clone()
            .filter(|v| !v.is_empty())
            .ok_or(ProbeError::missing("username"))?,
        secret_key: secret
            .filter(|v| !v.is_empty())
            .ok_or(ProbeError::missing(secret_field))?
            .to_owned(),
        session_token: None,
        region: c.property("region").unwrap_or(DEFAULT_REGION).to_owned(),
        service: service.to_owned(),
    })
}

fn s3_endpoint(endpoint: Option<&str>, region: &str) -> String {
    match endpoint.map(str::trim).filter(|e| !e.is_empty()) {
        Some(endpoint) => endpoint.trim_end_matches('/').to_owned(),
        None => format!("https://s3.{region}.amazonaws.com"),
    }
}

fn parse(url: &str) -> Result<Url, ProbeError> {
    Url::parse(url).map_err(|e| ProbeError::Invalid {
        field: "url",
        message: format!("{url}: {e}"),
    })
}

/// Sends a SigV4-signed request; the body of a 2xx answer, else AWS's error
/// code and message.
async fn signed(
    ctx: &Context,
    client: &Client,
    credentials: &Credentials,
    method: Method,
    url: Url,
    body: &str,
) -> Result<String, ProbeError> {
    let headers = if body.is_empty() {
        Vec::new()
    } else {
        vec![(
            "content-type".to_owned(),
            "application/x-www-form-urlencoded; charset=utf-8".to_owned(),
        )]
    };
    let added = sigv4::sign(
        credentials,
        method.as_str(),
        &url,
        &headers,
        body.as_bytes(),
        Utc::now(),
    );
    let mut request = client.request(method, url);
    for (name, value) in headers.into_iter().chain(added) {
        request = request.header(name, value);
    }
    if !body.is_empty() {
        request = request.body(body.to_owned());
    }
    let (status, answer) = send(ctx, client, request).await?;
    if status.is_success() {
        return Ok(answer);
    }
    Err(ProbeError::refused(aws_error(status, &answer)))
}

/// `HTTP 403 Forbidden: InvalidAccessKeyId: The AWS Access Key Id ...`.
fn aws_error(status: StatusCode, body: &str) -> String {
    match (element(body, "Code"), element(body, "Message")) {
        (Some(code), Some(message)) => format!("HTTP {status}: {code}: {message}"),
        (Some(code), None) => format!("HTTP {status}: {code}"),
        _ if body.trim().is_empty() => format!("HTTP {status}"),
        _ => format!("HTTP {status}: {}", service_error(body)),
    }
}

/// The text of the first `<name>` element: AWS's answers are small and flat
/// enough that this is all the XML reading a test needs.
fn element<'a>(xml: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}>");
    let start = xml.find(&open)? + open.len();
    let end = xml[start..].find(&format!("</{name}>"))? + start;
    Some(xml[start..end].trim())
}

async fn gcs(c: &Resolved, ctx: &Context, client: &Client) -> Result<Tried, ProbeError> {
    let credentials = c
        .certificate
        .as_deref()
        .filter(|v| !v.trim().is_empty())
        .ok_or(ProbeError::missing("certificate"))?;
    let account = ServiceAccount::parse(credentials)?;
    let scope = if c.kind == "gcs" {
        "https://www.googleapis.com/auth/devstorage.read_only"
    } else {
        "https://www.googleapis.com/auth/cloud-platform"
    };
    let token = account.token(ctx, client, scope).await?;
    let endpoint = c
        .url
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .unwrap_or("https://storage.googleapis.com")
        .trim_end_matches('/');
    let mut url = parse(&format!("{endpoint}/storage/v1/b"))?;
    url.query_pairs_mut()
        .append_pair("project", &account.project_id)
        .append_pair("maxResults", "1000");
    let (status, body) = send(ctx, client, client.get(url).bearer_auth(token)).await?;
    if !status.is_success() {
        return Err(ProbeError::refused(format!(
            "HTTP {status}: {}",
            service_error(&body)
        )));
    }
    let buckets = serde_json::from_str::<Value>(&body)
        .ok()
        .and_then(|v| v.get("items").and_then(Value::as_array).map(Vec::len))
        .unwrap_or(0);
    Ok(Tried::new(format!(
        "authenticated as {}; {buckets} bucket(s) in project {}",
        account.client_email, account.project_id
    )))
}

/// The fields of a Google service-account key file that a token needs.
struct ServiceAccount {
    client_email: String,
    private_key: String,
    token_uri: String,
    project_id: String,
}

impl ServiceAccount {
    fn parse(json: &str) -> Result<Self, ProbeError> {
        let invalid = |message: String| ProbeError::Invalid {
            field: "certificate",
            message,
        };
        let value: Value = serde_json::from_str(json)
            .map_err(|e| invalid(format!("not a service-account JSON key: {e}")))?;
        let field = |key: &str| {
            value
                .get(key)
                .and_then(Value::as_str)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
                .ok_or_else(|| invalid(format!("the service-account key has no {key}")))
        };
        Ok(Self {
            client_email: field("client_email")?,
            private_key: field("private_key")?,
            token_uri: field("token_uri")
                .unwrap_or_else(|_| "https://oauth2.googleapis.com/token".into()),
            project_id: field("project_id")?,
        })
    }

    /// Exchanges a JWT signed with the account's key for an access token
    /// (Google's "OAuth 2.0 for server to server applications").
    async fn token(
        &self,
        ctx: &Context,
        client: &Client,
        scope: &str,
    ) -> Result<String, ProbeError> {
        let assertion = self.assertion(scope)?;
        let form = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer")
            .append_pair("assertion", &assertion)
            .finish();
        let request = client
            .post(&self.token_uri)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form);
        let (status, body) = send(ctx, client, request).await?;
        if !status.is_success() {
            return Err(ProbeError::refused(format!(
                "HTTP {status} from {}: {}",
                self.token_uri,
                service_error(&body)
            )));
        }
        serde_json::from_str::<Value>(&body)
            .ok()
            .and_then(|v| {
                v.get("access_token")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .ok_or_else(|| {
                ProbeError::refused(format!(
                    "{} answered without an access_token",
                    self.token_uri
                ))
            })
    }

    fn assertion(&self, scope: &str) -> Result<String, ProbeError> {
        use base64::Engine;
        use base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let invalid = |message: String| ProbeError::Invalid {
            field: "certificate",
            message,
        };
        let der = PrivatePkcs8KeyDer::from_pem_slice(self.private_key.as_bytes())
            .map_err(|e| invalid(format!("private_key is not a PKCS#8 PEM key: {e}")))?;
        let key = RsaKeyPair::from_pkcs8(der.secret_pkcs8_der())
            .map_err(|e| invalid(format!("private_key is not an RSA key: {e}")))?;
        let now = Utc::now().timestamp();
        let header = serde_json::json!({ "alg": "RS256", "typ": "JWT" });
        let claims = serde_json::json!({
            "iss": self.client_email,
            "scope": scope,
            "aud": self.token_uri,
            "iat": now,
            "exp": now + 3600,
        });
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let mut signature = vec![0; key.public().modulus_len()];
        key.sign(
            &RSA_PKCS1_SHA256,
            &SystemRandom::new(),
            signing_input.as_bytes(),
            &mut signature,
        )
        .map_err(|_| invalid("signing with private_key failed".into()))?;
        Ok(format!(
            "{signing_input}.{}",
            URL_SAFE_NO_PAD.encode(signature)
        ))
    }
}
