//! Cloud and SaaS APIs: one authenticated read each, answering who or what the
//! credentials reach. Also the HTTP client every HTTP-speaking probe here uses.

use reqwest::{Client, RequestBuilder, StatusCode};
use serde_json::Value;

use super::{Context, ProbeError, Tried, within};
use crate::error_chain;
use crate::{Resolved, tls};

/// The services whose address no connection holds. Production uses the
/// defaults; tests point them at local servers.
#[derive(Debug, Clone)]
pub struct CloudEndpoints {
    /// AWS STS, for an `aws` connection without an endpoint.
    pub aws_sts: String,
    /// Microsoft Entra ID's token service, for `azure`.
    pub azure_login: String,
    /// Azure DevOps, for `azure_devops`.
    pub azure_devops: String,
}

impl Default for CloudEndpoints {
    fn default() -> Self {
        Self {
            aws_sts: "https://sts.amazonaws.com".into(),
            azure_login: "https://login.microsoftonline.com".into(),
            azure_devops: "https://dev.azure.com".into(),
        }
    }
}

pub(super) async fn test(c: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    let client = client(c.insecure_tls)?;
    match c.kind.as_str() {
        "github" => github(c, ctx, &client).await,
        "gitlab" => gitlab(c, ctx, &client).await,
        "azure_devops" => azure_devops(c, ctx, &client).await,
        "azure" => azure(c, ctx, &client).await,
        "dynatrace" => dynatrace(c, ctx, &client).await,
        "anthropic" => anthropic(c, ctx, &client).await,
        "openai" => openai(c, ctx, &client).await,
        "ollama" => ollama(c, ctx, &client).await,
        other => Err(ProbeError::Unsupported(format!(
            "testing {other} connections is not supported"
        ))),
    }
}

async fn github(c: &Resolved, ctx: &Context, client: &Client) -> Result<Tried, ProbeError> {
    let token = secret(c.password.as_deref(), "password")?;
    let base = base_url(c.url.as_deref(), "https://api.github.com");
    let user = get_json(
        ctx,
        client,
        client
            .get(format!("{base}/user"))
            .bearer_auth(token)
            .header("accept", "application/vnd.github+json"),
    )
    .await?;
    Ok(Tried::new(format!(
        "authenticated as {}",
        text(&user, "login")
    )))
}

async fn gitlab(c: &Resolved, ctx: &Context, client: &Client) -> Result<Tried, ProbeError> {
    let token = secret(c.password.as_deref(), "password")?;
    let base = base_url(c.url.as_deref(), "https://gitlab.com");
    let api = if base.ends_with("/api/v4") {
        base
    } else {
        format!("{base}/api/v4")
    };
    let user = get_json(
        ctx,
        client,
        client
            .get(format!("{api}/user"))
            .header("private-token", token),
    )
    .await?;
    Ok(Tried::new(format!(
        "authenticated as {}",
        text(&user, "username")
    )))
}

async fn azure_devops(c: &Resolved, ctx: &Context, client: &Client) -> Result<Tried, ProbeError> {
    let token = secret(c.password.as_deref(), "password")?;
    let organization = c
        .property("organization")
        .ok_or(ProbeError::missing("organization"))?;
    let base = ctx.cloud.azure_devops.trim_end_matches('/');
    let request = client
        .get(format!(
            "{base}/{organization}/_apis/projects?api-version=7.1"
        ))
        .basic_auth("", Some(token));
    let (status, body) = send(ctx, client, request).await?;
    // A token Azure DevOps does not accept gets its sign-in page (203), not a 401.
    if status == StatusCode::NON_AUTHORITATIVE_INFORMATION {
        return Err(ProbeError::refused(format!(
            "HTTP {status}: Azure DevOps answered with its sign-in page: the personal access \
             token was not accepted for {organization}"
        )));
    }
    let projects = json(status, &body)?;
    Ok(Tried::new(format!(
        "{} projects in {organization}",
        projects.get("count").and_then(Value::as_u64).unwrap_or(0)
    )))
}

async fn azure(c: &Resolved, ctx: &Context, client: &Client) -> Result<Tried, ProbeError> {
    let client_id = secret(c.username.as_deref(), "username")?;
    let client_secret = secret(c.password.as_deref(), "password")?;
    let tenant = c
        .property("tenantId")
        .ok_or(ProbeError::missing("tenantId"))?;
    let base = ctx.cloud.azure_login.trim_end_matches('/');
    let request = client
        .post(format!("{base}/{tenant}/oauth2/v2.0/token"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(
            url::form_urlencoded::Serializer::new(String::new())
                .append_pair("grant_type", "client_credentials")
                .append_pair("client_id", client_id)
                .append_pair("client_secret", client_secret)
                .append_pair("scope", "https://management.azure.com/.default")
                .finish(),
        );
    let (status, body) = send(ctx, client, request).await?;
    let token = json(status, &body)?;
    Ok(Tried::new(format!(
        "Microsoft Entra ID issued a token to client {client_id} in tenant {tenant} (valid {}s)",
        token.get("expires_in").and_then(Value::as_u64).unwrap_or(0)
    )))
}

async fn dynatrace(c: &Resolved, ctx: &Context, client: &Client) -> Result<Tried, ProbeError> {
    let token = secret(c.password.as_deref(), "password")?;
    let host = c
        .url
        .as_deref()
        .filter(|h| !h.is_empty())
        .ok_or(ProbeError::missing("url"))?;
    let scheme = c.property("scheme").unwrap_or("https");
    let request = client
        .post(format!(
            "{scheme}://{}/api/v2/apiTokens/lookup",
            host.trim_end_matches('/')
        ))
        .header("authorization", format!("Api-Token {token}"))
        .json(&serde_json::json!({ "token": token }));
    let (status, body) = send(ctx, client, request).await?;
    let found = json(status, &body)?;
    Ok(Tried::new(format!(
        "token {} accepted (scopes: {})",
        text(&found, "name"),
        found
            .get("scopes")
            .and_then(Value::as_array)
            .map(|s| s
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(", "))
            .unwrap_or_default()
    )))
}

async fn anthropic(c: &Resolved, ctx: &Context, client: &Client) -> Result<Tried, ProbeError> {
    let key = secret(c.password.as_deref(), "password")?;
    let base = base_url(c.url.as_deref(), "https://api.anthropic.com");
    let models = get_json(
        ctx,
        client,
        client
            .get(format!("{base}/v1/models"))
            .header("x-api-key", key)
            .header("anthropic-version", "2023-06-01"),
    )
    .await?;
    Ok(Tried::new(models_message(c, &models, "data", "id")))
}

async fn openai(c: &Resolved, ctx: &Context, client: &Client) -> Result<Tried, ProbeError> {
    let key = secret(c.password.as_deref(), "password")?;
    let base = base_url(c.url.as_deref(), "https://api.openai.com/v1");
    let models = get_json(
        ctx,
        client,
        client.get(format!("{base}/models")).bearer_auth(key),
    )
    .await?;
    Ok(Tried::new(models_message(c, &models, "data", "id")))
}

async fn ollama(c: &Resolved, ctx: &Context, client: &Client) -> Result<Tried, ProbeError> {
    let base = c
        .url
        .as_deref()
        .filter(|u| !u.is_empty())
        .ok_or(ProbeError::missing("url"))?
        .trim_end_matches('/');
    let mut request = client.get(format!("{base}/api/tags"));
    if let Some(key) = c.password.as_deref().filter(|k| !k.is_empty()) {
        request = request.bearer_auth(key);
    }
    let models = get_json(ctx, client, request).await?;
    Ok(Tried::new(models_message(c, &models, "models", "name")))
}

/// "N models available", and whether the connection's model is among them.
fn models_message(c: &Resolved, models: &Value, list: &str, id: &str) -> String {
    let names: Vec<&str> = models
        .get(list)
        .and_then(Value::as_array)
        .map(|m| {
            m.iter()
                .filter_map(|m| m.get(id).and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    let mut message = format!("{} models available", names.len());
    if let Some(model) = c.property("model") {
        if names.contains(&model) {
            message.push_str(&format!(", including {model}"));
        } else {
            message.push_str(&format!("; {model} is not among them"));
        }
    }
    message
}

fn base_url(url: Option<&str>, default: &str) -> String {
    url.filter(|u| !u.trim().is_empty())
        .unwrap_or(default)
        .trim()
        .trim_end_matches('/')
        .to_owned()
}

fn secret<'a>(value: Option<&'a str>, field: &'static str) -> Result<&'a str, ProbeError> {
    value
        .filter(|v| !v.is_empty())
        .ok_or(ProbeError::missing(field))
}

fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("?")
}

/// An HTTP client over rustls with ring: the platform's roots, or no
/// certificate verification when `insecure`.
pub(super) fn client(insecure: bool) -> Result<Client, ProbeError> {
    let config =
        tls::client_config(insecure).map_err(|e| ProbeError::refused(format!("TLS setup: {e}")))?;
    Client::builder()
        .tls_backend_preconfigured(config)
        .user_agent(concat!("quarterdeck/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| ProbeError::refused(format!("HTTP client setup: {}", error_chain(&e))))
}

/// Sends `request` within the test's time, answering the status and body.
pub(super) async fn send(
    ctx: &Context,
    client: &Client,
    request: RequestBuilder,
) -> Result<(StatusCode, String), ProbeError> {
    let request = request
        .build()
        .map_err(|e| ProbeError::refused(error_chain(&e)))?;
    let mut shown = request.url().clone();
    shown.set_query(None);
    let during = format!("requesting {} {shown}", request.method());
    within(ctx.timeout, during, async {
        let response = client
            .execute(request)
            .await
            .map_err(|e| ProbeError::refused(error_chain(&e)))?;
        let status = response.status();
        let body = response
            .text()
            .await
            .map_err(|e| ProbeError::refused(error_chain(&e)))?;
        Ok((status, body))
    })
    .await
}

async fn get_json(
    ctx: &Context,
    client: &Client,
    request: RequestBuilder,
) -> Result<Value, ProbeError> {
    let (status, body) = send(ctx, client, request).await?;
    json(status, &body)
}

/// The body of a successful answer as JSON; otherwise the service's own error.
fn json(status: StatusCode, body: &str) -> Result<Value, ProbeError> {
    if !status.is_success() {
        return Err(ProbeError::refused(format!(
            "HTTP {status}: {}",
            service_error(body)
        )));
    }
    serde_json::from_str(body)
        .map_err(|e| ProbeError::refused(format!("HTTP {status} but not JSON ({e})")))
}

/// The message in a JSON error body as the common APIs shape it, else the body.
pub(super) fn service_error(body: &str) -> String {
    let found = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        [
            "/error/message",
            "/error_description",
            "/message",
            "/error",
            "/errors/0/message",
        ]
        .iter()
        .find_map(|path| v.pointer(path).and_then(Value::as_str).map(str::to_owned))
    });
    found.unwrap_or_else(|| body.trim().chars().take(300).collect())
}
