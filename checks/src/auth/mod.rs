//! How `http` and `prometheus` checks authenticate and send their request:
//! Basic, bearer, Digest (answering the server's 401 challenge) or AWS SigV4,
//! with the check's redirect limit.

mod digest;

use chrono::Utc;
use quarterdeck_connections::sigv4;
use quarterdeck_crds::common::{AwsSigV4, EnvVar};
use reqwest::header::WWW_AUTHENTICATE;
use reqwest::{Client, Method, RequestBuilder, Response, StatusCode};
use url::Url;

use crate::error::CheckError;
use crate::http_clients::{self, ClientKey};
use crate::secrets::{Endpoint, Resolver};
use crate::tls::TlsOptions;

/// How a request proves who sends it.
pub(crate) enum Auth {
    None,
    Basic {
        username: String,
        password: Option<String>,
    },
    Bearer(String),
    Digest {
        username: String,
        password: String,
    },
    SigV4(sigv4::Credentials),
}

/// The authentication fields of a check.
pub(crate) struct AuthSpec<'a> {
    /// Username and password, after the check's connection is resolved.
    pub endpoint: &'a Endpoint,
    pub bearer: Option<&'a EnvVar>,
    pub digest: bool,
    /// `ntlm` or `ntlmv2`.
    pub ntlm: bool,
    pub aws_sig_v4: Option<&'a AwsSigV4>,
}

impl Auth {
    pub(crate) async fn resolve(
        spec: AuthSpec<'_>,
        resolver: &Resolver,
    ) -> Result<Self, CheckError> {
        if spec.ntlm {
            return Err(CheckError::new("NTLM authentication is not supported"));
        }
        let username = spec.endpoint.username.clone().filter(|u| !u.is_empty());
        let chosen = [
            spec.digest.then_some("digest"),
            spec.aws_sig_v4.map(|_| "awsSigV4"),
            spec.bearer.map(|_| "bearer"),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>();
        if chosen.len() > 1 {
            return Err(CheckError::new(format!(
                "{} cannot be combined",
                chosen.join(" and ")
            )));
        }
        if let Some(aws) = spec.aws_sig_v4 {
            return Ok(Self::SigV4(sigv4_credentials(aws, resolver).await?));
        }
        if let Some(bearer) = spec.bearer {
            return Ok(Self::Bearer(resolver.secret(bearer).await?));
        }
        if spec.digest {
            let username = username
                .ok_or_else(|| CheckError::new("digest authentication needs a username"))?;
            return Ok(Self::Digest {
                username,
                password: spec.endpoint.password.clone().unwrap_or_default(),
            });
        }
        Ok(match username {
            Some(username) => Self::Basic {
                username,
                password: spec.endpoint.password.clone(),
            },
            None => Self::None,
        })
    }
}

async fn sigv4_credentials(
    aws: &AwsSigV4,
    resolver: &Resolver,
) -> Result<sigv4::Credentials, CheckError> {
    let named = |field: &str, value: &Option<String>| {
        value
            .as_deref()
            .filter(|v| !v.trim().is_empty())
            .map(|v| v.trim().to_owned())
            .ok_or_else(|| CheckError::new(format!("awsSigV4 needs {field}")))
    };
    if aws
        .assume_role
        .as_deref()
        .is_some_and(|r| !r.trim().is_empty())
    {
        return Err(CheckError::unsupported("awsSigV4.assumeRole"));
    }
    if aws
        .connection
        .as_deref()
        .is_some_and(|c| !c.trim().is_empty())
    {
        return Err(CheckError::unsupported("awsSigV4.connection"));
    }
    let access_key = match &aws.access_key {
        Some(var) => resolver.value(var).await?,
        None => String::new(),
    };
    let secret_key = match &aws.secret_key {
        Some(var) => resolver.secret(var).await?,
        None => String::new(),
    };
    if access_key.is_empty() || secret_key.is_empty() {
        return Err(CheckError::new("awsSigV4 needs accessKey and secretKey"));
    }
    let session_token = match &aws.session_token {
        Some(var) => Some(resolver.secret(var).await?),
        None => None,
    };
    Ok(sigv4::Credentials {
        access_key,
        secret_key,
        session_token,
        region: named("a region", &aws.region)?,
        service: named("a service", &aws.service)?,
    })
}

/// The shared HTTP client for the check's TLS settings and redirect limit
/// (`None`: reqwest's default of 10; `Some(0)`: a 3xx is the answer).
pub(crate) fn client(
    tls: &TlsOptions,
    max_redirects: Option<i32>,
    tls_info: bool,
) -> Result<Client, CheckError> {
    http_clients::client(ClientKey::new(tls, max_redirects, tls_info))
}

/// What to send, kept so a Digest challenge can be answered with the same request.
pub(crate) struct Request {
    pub method: Method,
    pub url: Url,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
}

/// Sends `request` with `auth`. For Digest, a 401 carrying a challenge from the
/// request's own origin is answered once; any other answer is returned as it is.
/// Errors start with `context`.
pub(crate) async fn send(
    client: &Client,
    request: &Request,
    auth: &Auth,
    context: &str,
) -> Result<Response, CheckError> {
    let transmit = |builder: RequestBuilder| async move {
        builder
            .send()
            .await
            .map_err(|e| CheckError::from_err(context, &e.without_url()))
    };
    let response = transmit(build(client, request, &request.url, auth)).await?;
    let Auth::Digest { username, password } = auth else {
        return Ok(response);
    };
    let url = response.url().clone();
    if response.status() != StatusCode::UNAUTHORIZED || url.origin() != request.url.origin() {
        return Ok(response);
    }
    let challenges: Vec<String> = response
        .headers()
        .get_all(WWW_AUTHENTICATE)
        .iter()
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .collect();
    let uri = match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_owned(),
    };
    let cnonce = uuid::Uuid::new_v4().simple().to_string();
    let value = digest::authorization(
        &challenges,
        username,
        password,
        request.method.as_str(),
        &uri,
        &cnonce,
    )?;
    let answer = build(client, request, &url, &Auth::None).header("authorization", value);
    transmit(answer).await
}

fn build(client: &Client, request: &Request, url: &Url, auth: &Auth) -> RequestBuilder {
    let mut builder = client.request(request.method.clone(), url.clone());
    for (name, value) in &request.headers {
        builder = builder.header(name, value);
    }
    builder = match auth {
        Auth::None | Auth::Digest { .. } => builder,
        Auth::Basic { username, password } => builder.basic_auth(username, password.as_deref()),
        Auth::Bearer(token) => builder.bearer_auth(token),
        Auth::SigV4(credentials) => {
            let body = request.body.as_deref().unwrap_or("").as_bytes();
            let signed = sigv4::sign(
                credentials,
                request.method.as_str(),
                url,
                &request.headers,
                body,
                Utc::now(),
            );
            signed
                .into_iter()
                .fold(builder, |b, (name, value)| b.header(name, value))
        }
    };
    if let Some(body) = &request.body {
        builder = builder.body(body.clone());
    }
    builder
}

/// The check's `headers`, each with a name and its resolved value.
pub(crate) async fn headers(
    headers: Option<&[EnvVar]>,
    resolver: &Resolver,
) -> Result<Vec<(String, String)>, CheckError> {
    let mut resolved = Vec::new();
    for header in headers.unwrap_or_default() {
        let name = header
            .name
            .as_deref()
            .filter(|n| !n.is_empty())
            .ok_or_else(|| CheckError::new("every header needs a name"))?;
        resolved.push((name.to_owned(), resolver.value(header).await?));
    }
    Ok(resolved)
}

/// The URL for messages: no user info.
pub(crate) fn without_credentials(url: &Url) -> String {
    let mut shown = url.clone();
    // Only fails for URLs that cannot carry credentials, which then have none.
    let _ = shown.set_password(None);
    let _ = shown.set_username("");
    shown.to_string()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
