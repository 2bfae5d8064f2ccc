//! Source type `http`: calls `url` (or the named connection's URL) and reads
//! the answer as JSON or YAML (`format`), one item per document; the
//! pipeline's `items` JSONPath splits it. `pagination` follows next pages (a
//! `Link: <...>; rel="next"` header, or `nextPageExpr` in CEL over
//! `response.{body, headers, status, url}` or a JSONPath into the body), at
//! most `maxPages`, merging them into one list (`reduceExpr`) or one item per
//! page (`perPage`). A named connection's credentials go only to that
//! connection's own origin, and no page, redirect or header leaves the
//! origin of the first request.

use std::time::Duration;

use quarterdeck_checks::{evaluate_cel, query_json_path};
use quarterdeck_crds::common::EnvVar;
use reqwest::header::{HeaderMap, LINK, RETRY_AFTER};
use reqwest::{Client, Method, Response, StatusCode, redirect};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use url::{Origin, Url};

use super::credentials::{connection, env_var, scrub};
use crate::base;
use crate::model::{RawItem, ScrapeError, SourceOutput};
use crate::run::Context;
use quarterdeck_connections::error_chain;

/// Pages read when `pagination.maxPages` is not set.
const DEFAULT_MAX_PAGES: usize = 100;
/// How much of an error answer's body goes into the error.
const ERROR_BODY_LIMIT: usize = 500;
/// Retries of a page answered 429 Too Many Requests.
const RETRIES_ON_429: u32 = 3;
/// The longest `Retry-After` waited for.
const MAX_RETRY_WAIT: Duration = Duration::from_secs(30);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// One entry of a ScrapeConfig's `http` list (the common fields are the pipeline's).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct HttpSpec {
    url: Option<String>,
    connection: Option<String>,
    username: Option<EnvVar>,
    password: Option<EnvVar>,
    bearer: Option<EnvVar>,
    method: Option<String>,
    body: Option<String>,
    #[serde(default)]
    headers: Vec<EnvVar>,
    #[serde(default)]
    env: Vec<EnvVar>,
    format: Option<String>,
    pagination: Option<Pagination>,
    oauth: Option<Value>,
    tls: Option<Value>,
    ntlm: Option<Value>,
    ntlmv2: Option<Value>,
    digest: Option<Value>,
    aws_sig_v4: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Pagination {
    next_page_expr: Option<String>,
    reduce_expr: Option<String>,
    #[serde(default)]
    per_page: bool,
    max_pages: Option<usize>,
    delay: Option<String>,
}

/// One request to send.
#[derive(Debug, Clone)]
struct Page {
    method: Method,
    url: Url,
    body: Option<String>,
    headers: Vec<(String, String)>,
}

/// One answer, parsed.
struct Answer {
    url: Url,
    status: StatusCode,
    headers: HeaderMap,
    documents: Vec<Value>,
}

/// The resolved request settings shared by every page.
struct Caller {
    client: Client,
    origin: Origin,
    auth: Auth,
    headers: Vec<(String, String)>,
    format: Option<String>,
    secrets: Vec<String>,
    timeout: Duration,
}

enum Auth {
    None,
    Basic(String, Option<String>),
    Bearer(String),
}

pub async fn scrape(ctx: &Context, spec: &Value) -> Result<SourceOutput, ScrapeError> {
    let spec = HttpSpec::deserialize(spec).map_err(|e| spec_error("http", e.to_string()))?;
    reject_unsupported(&spec)?;
    let (caller, first) = prepare(ctx, &spec).await?;
    let pagination = spec.pagination.as_ref();
    let max_pages = pagination
        .and_then(|p| p.max_pages)
        .filter(|m| *m > 0)
        .unwrap_or(DEFAULT_MAX_PAGES);
    let delay = pagination
        .and_then(|p| p.delay.as_deref())
        .filter(|d| !d.trim().is_empty())
        .map(|d| {
            humantime::parse_duration(d.trim())
                .map_err(|e| spec_error("pagination.delay", format!("{d:?}: {e}")))
        })
        .transpose()?;

    let source = shown_url(&first.url);
    let mut output = SourceOutput::default();
    let mut merged: Vec<Value> = Vec::new();
    let mut next = Some(first);
    let mut read = 0;
    while let Some(page) = next.take() {
        if read == max_pages {
            output.errors.push((
                "pagination".into(),
                ScrapeError::Source(format!(
                    "stopped after {max_pages} pages (maxPages) with more pages to read"
                )),
            ));
            break;
        }
        if read > 0
            && let Some(delay) = delay
        {
            tokio::time::sleep(delay).await;
        }
        let answer = caller.fetch(&page, read + 1).await?;
        read += 1;
        let Some(pagination) = pagination else {
            output
                .items
                .extend(answer.documents.into_iter().map(|config| RawItem {
                    config,
                    source: Some(source.clone()),
                    ..RawItem::default()
                }));
            break;
        };
        next = caller.next_page(pagination, &page, &answer)?;
        let body = body_of(answer.documents);
        if pagination.per_page {
            output.items.push(RawItem {
                config: body,
                source: Some(shown_url(&answer.url)),
                ..RawItem::default()
            });
        } else {
            merged = reduce(pagination.reduce_expr.as_deref(), merged, body)?;
        }
    }
    if pagination.is_some_and(|p| !p.per_page) {
        output.items.push(RawItem {
            config: Value::Array(merged),
            source: Some(source),
            ..RawItem::default()
        });
    }
    Ok(output)
}

fn reject_unsupported(spec: &HttpSpec) -> Result<(), ScrapeError> {
    let set = |value: &Option<Value>| {
        value
            .as_ref()
            .is_some_and(|v| !v.is_null() && *v != Value::Bool(false))
    };
    for (field, value) in [
        ("oauth", &spec.oauth),
        ("tls", &spec.tls),
        ("ntlm", &spec.ntlm),
        ("ntlmv2", &spec.ntlmv2),
        ("digest", &spec.digest),
        ("awsSigV4", &spec.aws_sig_v4),
    ] {
        if set(value) {
            return Err(spec_error(
                field,
                "not supported by this version of http scrapers".into(),
            ));
        }
    }
    Ok(())
}

/// Resolves the connection, credentials, headers and `env` into a caller and the first request.
async fn prepare(ctx: &Context, spec: &HttpSpec) -> Result<(Caller, Page), ScrapeError> {
    let mut secrets = Vec::new();
    let mut username = None;
    let mut password = None;
    let mut connection_url = None;
    if let Some(reference) = spec.connection.as_deref().filter(|c| !c.trim().is_empty()) {
        let named = connection(ctx, reference).await?;
        secrets.extend(named.password.clone());
        connection_url = Some((reference, named.url.clone()));
        username = named.username;
        password = named.password;
    }
    let mut env = Map::new();
    for var in &spec.env {
        let name = var
            .name
            .as_deref()
            .filter(|n| !n.is_empty())
            .ok_or_else(|| spec_error("env", "every variable needs a name".into()))?;
        let value = env_var(ctx, var).await?;
        if from_secret(var) {
            secrets.push(value.clone());
        }
        env.insert(name.to_owned(), Value::String(value));
    }
    let raw = spec
        .url
        .as_deref()
        .filter(|u| !u.trim().is_empty())
        .map(str::to_owned)
        .or_else(|| connection_url.as_ref().and_then(|(_, url)| url.clone()))
        .ok_or_else(|| {
            spec_error(
                "url",
                "an http scraper needs a url or a connection with one".into(),
            )
        })?;
    let text = template(raw.trim(), &env);
    let url = Url::parse(&text).map_err(|e| {
        spec_error(
            "url",
            format!(
                "invalid url {:?}: {e}",
                scrub(&text, secrets.iter().map(String::as_str))
            ),
        )
    })?;
    if let Some(password) = url.password() {
        secrets.push(password.to_owned());
    }
    if let Some((reference, own)) = &connection_url {
        let own_origin = own
            .as_deref()
            .and_then(|u| Url::parse(u.trim()).ok())
            .map(|u| u.origin());
        if own_origin.as_ref() != Some(&url.origin()) {
            return Err(spec_error(
                "url",
                format!(
                    "connection {reference:?} is used with another endpoint: its credentials go only to its own origin"
                ),
            ));
        }
    }
    if let Some(var) = &spec.username {
        username = Some(env_var(ctx, var).await?);
    }
    if let Some(var) = &spec.password {
        let value = env_var(ctx, var).await?;
        secrets.push(value.clone());
        password = Some(value);
    }
    let auth = match (&spec.bearer, username.filter(|u| !u.is_empty())) {
        (Some(var), _) => {
            let token = env_var(ctx, var).await?;
            secrets.push(token.clone());
            Auth::Bearer(token)
        }
        (None, Some(user)) => Auth::Basic(user, password),
        (None, None) => Auth::None,
    };
    let mut headers = Vec::new();
    for header in &spec.headers {
        let name = header
            .name
            .as_deref()
            .filter(|n| !n.is_empty())
            .ok_or_else(|| spec_error("headers", "every header needs a name".into()))?;
        let value = env_var(ctx, header).await?;
        if from_secret(header) {
            secrets.push(value.clone());
        }
        headers.push((name.to_owned(), value));
    }
    let method_name = spec
        .method
        .as_deref()
        .unwrap_or("GET")
        .trim()
        .to_ascii_uppercase();
    let method = Method::from_bytes(method_name.as_bytes())
        .map_err(|_| spec_error("method", format!("invalid method {method_name:?}")))?;
    let client = client(ctx.timeout)?;
    let caller = Caller {
        client,
        origin: url.origin(),
        auth,
        headers,
        format: spec.format.clone(),
        secrets,
        timeout: ctx.timeout,
    };
    let first = Page {
        method,
        url,
        body: spec.body.clone(),
        headers: Vec::new(),
    };
    Ok((caller, first))
}

/// A client whose redirects stay on the first request's origin.
fn client(timeout: Duration) -> Result<Client, ScrapeError> {
    let tls = quarterdeck_connections::tls::client_config(false)
        .map_err(|e| ScrapeError::Source(format!("TLS settings: {e}")))?;
    let same_origin = redirect::Policy::custom(|attempt| {
        let first = attempt.previous().first().map(Url::origin);
        if attempt.previous().len() > 10 || first.as_ref() != Some(&attempt.url().origin()) {
            attempt.stop()
        } else {
            attempt.follow()
        }
    });
    Client::builder()
        .tls_backend_preconfigured(tls)
        .redirect(same_origin)
        .connect_timeout(CONNECT_TIMEOUT.min(timeout))
        .timeout(timeout)
        .build()
        .map_err(|e| ScrapeError::Source(format!("http client: {}", error_chain(&e))))
}

impl Caller {
    /// Sends `page` (page number `number`), retrying a 429 a few times, and
    /// parses a successful answer; any other status is an error with the server's message.
    async fn fetch(&self, page: &Page, number: usize) -> Result<Answer, ScrapeError> {
        let shown = format!("{} {}", page.method, shown_url(&page.url));
        let what = if number > 1 {
            format!("page {number}: {shown}")
        } else {
            shown
        };
        let mut attempt = 0;
        let response = loop {
            let response = self.send(page).await.map_err(|e| self.failed(&what, e))?;
            if response.status() != StatusCode::TOO_MANY_REQUESTS || attempt == RETRIES_ON_429 {
                break response;
            }
            tokio::time::sleep(retry_wait(response.headers(), attempt)).await;
            attempt += 1;
        };
        let status = response.status();
        let headers = response.headers().clone();
        let url = response.url().clone();
        let text = response
            .text()
            .await
            .map_err(|e| self.failed(&format!("reading the answer of {what}"), e))?;
        if !status.is_success() {
            let mut message: String = text.trim().chars().take(ERROR_BODY_LIMIT).collect();
            if status.is_redirection() {
                message = "a redirect to another origin is not followed".into();
            }
            return Err(ScrapeError::Source(
                self.scrub(&format!("{what} answered {status}: {message}")),
            ));
        }
        let documents = base::parse(self.format.as_deref(), &text).map_err(|e| match e {
            ScrapeError::Source(message) => ScrapeError::Source(format!("{what}: {message}")),
            other => other,
        })?;
        Ok(Answer {
            url,
            status,
            headers,
            documents,
        })
    }

    async fn send(&self, page: &Page) -> Result<Response, reqwest::Error> {
        let mut builder = self.client.request(page.method.clone(), page.url.clone());
        for (name, value) in self.headers.iter().chain(&page.headers) {
            builder = builder.header(name, value);
        }
        builder = match &self.auth {
            Auth::None => builder,
            Auth::Basic(user, password) => builder.basic_auth(user, password.as_deref()),
            Auth::Bearer(token) => builder.bearer_auth(token),
        };
        if let Some(body) = &page.body {
            builder = builder.body(body.clone());
        }
        builder.send().await
    }

    fn failed(&self, what: &str, error: reqwest::Error) -> ScrapeError {
        let limit = |d: Duration| humantime::format_duration(d).to_string();
        if error.is_timeout() {
            let host = error
                .url()
                .and_then(|u| Some(format!("{}:{}", u.host_str()?, u.port_or_known_default()?)))
                .unwrap_or_default();
            return if error.is_connect() {
                ScrapeError::Timeout(format!(
                    "{} connecting to {host}",
                    limit(CONNECT_TIMEOUT.min(self.timeout))
                ))
            } else {
                ScrapeError::Timeout(format!("{} waiting for {what}", limit(self.timeout)))
            };
        }
        let error = error.without_url();
        ScrapeError::Source(self.scrub(&format!("{what}: {}", error_chain(&error))))
    }

    fn scrub(&self, text: &str) -> String {
        scrub(text, self.secrets.iter().map(String::as_str))
    }

    /// The page after `answer`, if any: by `nextPageExpr`, else by the `Link` header.
    fn next_page(
        &self,
        pagination: &Pagination,
        page: &Page,
        answer: &Answer,
    ) -> Result<Option<Page>, ScrapeError> {
        let found = match pagination.next_page_expr.as_deref().map(str::trim) {
            Some(expr) if !expr.is_empty() => next_by_expression(expr, answer)?,
            _ => next_link(&answer.headers).map_or(Value::Null, Value::String),
        };
        let mut next = Page {
            method: Method::GET,
            url: page.url.clone(),
            body: None,
            headers: Vec::new(),
        };
        let target = match found {
            Value::Null => return Ok(None),
            Value::String(url) => url,
            Value::Object(request) => {
                if let Some(method) = request.get("method").and_then(Value::as_str) {
                    next.method = Method::from_bytes(method.to_ascii_uppercase().as_bytes())
                        .map_err(|_| {
                            spec_error(
                                "pagination.nextPageExpr",
                                format!("invalid method {method:?}"),
                            )
                        })?;
                }
                next.body = request
                    .get("body")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                if let Some(headers) = request.get("headers").and_then(Value::as_object) {
                    next.headers = headers
                        .iter()
                        .map(|(k, v)| {
                            (
                                k.clone(),
                                v.as_str().map_or_else(|| v.to_string(), str::to_owned),
                            )
                        })
                        .collect();
                }
                request
                    .get("url")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            }
            other => other.to_string(),
        };
        if target.trim().is_empty() {
            return Ok(None);
        }
        next.url = answer.url.join(target.trim()).map_err(|e| {
            ScrapeError::Source(self.scrub(&format!("the next page {target:?} is not a URL: {e}")))
        })?;
        if next.url.origin() != self.origin {
            return Err(ScrapeError::Source(format!(
                "the next page {} is on another origin than the first: credentials and headers go only to the first request's origin",
                shown_url(&next.url)
            )));
        }
        Ok(Some(next))
    }
}

/// `nextPageExpr`: a JSONPath into the body (starting with `$`), or CEL over `response`.
fn next_by_expression(expr: &str, answer: &Answer) -> Result<Value, ScrapeError> {
    let body = body_of(answer.documents.clone());
    let field = || "pagination.nextPageExpr".to_owned();
    if expr.starts_with('$') {
        return query_json_path(expr, &body).map_err(|message| ScrapeError::Spec {
            field: field(),
            message,
        });
    }
    let headers: Map<String, Value> = answer
        .headers
        .keys()
        .map(|name| {
            let values: Vec<&str> = answer
                .headers
                .get_all(name)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .collect();
            (name.as_str().to_owned(), Value::String(values.join(", ")))
        })
        .collect();
    let mut env = Map::new();
    env.insert(
        "response".into(),
        json!({
            "body": body,
            "headers": headers,
            "status": answer.status.as_u16(),
            "url": shown_url(&answer.url),
        }),
    );
    evaluate_cel(expr, &env).map_err(|message| ScrapeError::Spec {
        field: field(),
        message,
    })
}

/// The `rel="next"` target of the `Link` headers (RFC 8288).
fn next_link(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(LINK)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .find_map(|link| {
            let mut parts = link.split(';');
            let target = parts.next()?.trim().strip_prefix('<')?.strip_suffix('>')?;
            parts
                .any(|p| {
                    p.trim().strip_prefix("rel=").is_some_and(|r| {
                        r.trim_matches('"')
                            .split_whitespace()
                            .any(|r| r.eq_ignore_ascii_case("next"))
                    })
                })
                .then(|| target.to_owned())
        })
}

/// Adds a page to the merged list: `reduceExpr` (CEL over `acc` and `page`,
/// returning a list), else arrays are concatenated, an object's `value`,
/// `items` or `Items` list is, and anything else is appended.
fn reduce(expr: Option<&str>, acc: Vec<Value>, page: Value) -> Result<Vec<Value>, ScrapeError> {
    if let Some(expr) = expr.map(str::trim).filter(|e| !e.is_empty()) {
        let mut env = Map::new();
        env.insert("acc".into(), Value::Array(acc));
        env.insert("page".into(), page);
        return match evaluate_cel(expr, &env) {
            Ok(Value::Array(list)) => Ok(list),
            Ok(other) => Err(spec_error(
                "pagination.reduceExpr",
                format!("must return a list, not {other}"),
            )),
            Err(message) => Err(spec_error("pagination.reduceExpr", message)),
        };
    }
    let mut acc = acc;
    match page {
        Value::Array(items) => acc.extend(items),
        Value::Object(mut object) => {
            match ["value", "items", "Items"]
                .iter()
                .find_map(|key| match object.get(*key) {
                    Some(Value::Array(_)) => object.remove(*key),
                    _ => None,
                }) {
                Some(Value::Array(items)) => acc.extend(items),
                _ => acc.push(Value::Object(object)),
            }
        }
        other => acc.push(other),
    }
    Ok(acc)
}

/// A page's documents as one value: the document, or the list of a YAML stream's documents.
fn body_of(mut documents: Vec<Value>) -> Value {
    if documents.len() == 1 {
        documents.remove(0)
    } else {
        Value::Array(documents)
    }
}

/// `{{.name}}` / `{{ .name }}` / `$(name)` in the URL replaced by `env` values.
fn template(text: &str, env: &Map<String, Value>) -> String {
    env.iter().fold(text.to_owned(), |text, (name, value)| {
        let value = value.as_str().unwrap_or_default();
        [
            format!("{{{{.{name}}}}}"),
            format!("{{{{ .{name} }}}}"),
            format!("$({name})"),
        ]
        .iter()
        .fold(text, |text, pattern| text.replace(pattern, value))
    })
}

fn from_secret(var: &EnvVar) -> bool {
    var.value_from.as_ref().is_some_and(|f| {
        f.secret_key_ref.is_some() || f.service_account.is_some() || f.helm_ref.is_some()
    })
}

/// How long to wait before retrying a 429: its `Retry-After` seconds, else 1s, 2s, 4s.
fn retry_wait(headers: &HeaderMap, attempt: u32) -> Duration {
    headers
        .get(RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(Duration::from_secs(1 << attempt), Duration::from_secs)
        .min(MAX_RETRY_WAIT)
}

/// The URL for messages and item sources: no user info.
fn shown_url(url: &Url) -> String {
    let mut shown = url.clone();
    // Only fails for URLs that cannot carry credentials, which then have none.
    let _ = shown.set_password(None);
    let _ = shown.set_username("");
    shown.to_string()
}

fn spec_error(field: &str, message: String) -> ScrapeError {
    ScrapeError::Spec {
        field: field.into(),
        message,
    }
}
