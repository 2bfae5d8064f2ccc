//! `GET` and `POST /api/playbook/webhook/{path}`: another system starts a
//! run of the live playbook whose `spec.on.webhook.path` is `{path}`. No
//! session: the request authenticates itself by the playbook's
//! `authentication` (`crate::webhook_auth`); a playbook without one takes
//! any request, as Mission Control's do, and each such call is logged. The
//! request (method, URL, query parameters, headers without credentials,
//! body as text and parsed when JSON) is stored with the run and is
//! `.request` to its templates.

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use quarterdeck_checks::KubeLookup;
use quarterdeck_crds::playbook::{WebhookAuth, WebhookTrigger};
use quarterdeck_store::playbook_start;
use quarterdeck_store::runnable_playbooks::{self, Playbook};
use serde_json::{Map, Value, json};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::runs::{self, RunCreated};
use crate::auth::json_body;
use crate::body::Path;
use crate::error::ErrorBody;
use crate::webhook_auth::{CREDENTIAL_HEADERS, Refused, Verifier};
use crate::{ApiError, AppState};

pub(super) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(webhook_get, webhook_post))
}

/// Starts a run of the playbook whose `spec.on.webhook.path` is `path`,
/// authenticated by its `authentication` (`basic`, `github`, `svix`, `jwt`;
/// every one it sets must pass; none: any request). The run starts pending
/// approval when the playbook lists approvers; its parameters take their
/// defaults (templated over `playbook` and `request`).
#[utoipa::path(get, path = "/api/playbook/webhook/{path}", tag = "playbooks",
    params(("path" = String, Path, description = "The playbook's `spec.on.webhook.path`")),
    responses(
        (status = 201, body = RunCreated),
        (status = 400, description = "A parameter's default breaks its rules (the error names it)", body = ErrorBody),
        (status = 401, description = "Credentials missing or wrong (which is not said)", body = ErrorBody),
        (status = 404, description = "No live playbook has this webhook path", body = ErrorBody),
        (status = 503, description = "The playbook's credentials cannot be read, or its JWKS fetched, now", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(path = tracing::field::Empty))]
pub(crate) async fn webhook_get(
    State(state): State<AppState>,
    path: Result<Path<String>, ApiError>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<(StatusCode, Json<RunCreated>), ApiError> {
    let Path(path) = path?;
    receive(&state, &path, &Method::GET, &uri, &headers, &[]).await
}

/// As `GET`, with a body: kept as text for `.request.content`, and parsed
/// into `.request.json` when its Content-Type is JSON. The body is part of
/// what `github` and `svix` sign.
#[utoipa::path(post, path = "/api/playbook/webhook/{path}", tag = "playbooks",
    params(("path" = String, Path, description = "The playbook's `spec.on.webhook.path`")),
    request_body(content(
        (Object = "application/json"),
        (String = "text/plain")),
        description = "Any body, up to 1 MiB"),
    responses(
        (status = 201, body = RunCreated),
        (status = 400, description = "A body over 1 MiB, or a parameter's default that breaks its rules (the error names it)", body = ErrorBody),
        (status = 401, description = "Credentials missing or wrong (which is not said)", body = ErrorBody),
        (status = 404, description = "No live playbook has this webhook path", body = ErrorBody),
        (status = 503, description = "The playbook's credentials cannot be read, or its JWKS fetched, now", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(path = tracing::field::Empty))]
pub(crate) async fn webhook_post(
    State(state): State<AppState>,
    path: Result<Path<String>, ApiError>,
    uri: Uri,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<RunCreated>), ApiError> {
    let Path(path) = path?;
    let body = body.map_err(|e| ApiError::invalid("body", e.body_text()))?;
    receive(&state, &path, &Method::POST, &uri, &headers, &body).await
}

async fn receive(
    state: &AppState,
    path: &str,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(StatusCode, Json<RunCreated>), ApiError> {
    tracing::Span::current().record("path", path);
    let not_found = || ApiError::NotFound("no playbook webhook at this path".into());
    let playbook = runnable_playbooks::by_webhook_path(&state.db, path)
        .await?
        .ok_or_else(not_found)?;
    let trigger: WebhookTrigger = playbook
        .spec
        .0
        .pointer("/on/webhook")
        .cloned()
        .map(serde_json::from_value)
        .transpose()
        .map_err(|e| ApiError::Internal(format!("spec.on.webhook of {}: {e}", name(&playbook))))?
        .ok_or_else(not_found)?;
    // `authentication: {}` sets no kind: no authentication either.
    match trigger
        .authentication
        .as_ref()
        .filter(|a| **a != WebhookAuth::default())
    {
        None => tracing::warn!(
            playbook = %name(&playbook),
            "playbook webhook called without authentication: the playbook sets none"
        ),
        Some(auth) => {
            let verifier = Verifier {
                cluster: state.kube_client().map(KubeLookup::new),
                namespace: &playbook.summary.namespace,
                jwks: &state.jwks,
            };
            verifier
                .verify(auth, headers, body)
                .await
                .map_err(|refused| match refused {
                    Refused::Credentials(why) => {
                        tracing::info!(playbook = %name(&playbook), reason = %why, "playbook webhook refused");
                        ApiError::Unauthorized
                    }
                    Refused::Setup(why) => {
                        tracing::warn!(playbook = %name(&playbook), reason = %why, "playbook webhook cannot authenticate");
                        ApiError::Unavailable(
                            "the webhook cannot authenticate requests now".into(),
                        )
                    }
                })?;
        }
    }
    let request = request_of(method, uri, headers, body);
    let mut tx = state.db.begin().await?;
    let (run_id, starts_at) = playbook_start::start(
        &mut tx,
        &playbook,
        None,
        &Map::new(),
        Value::Null,
        None,
        Some(request),
    )
    .await
    .map_err(runs::start_error)?;
    tx.commit().await?;
    tracing::info!(run = %run_id, playbook = %name(&playbook), "playbook run started by its webhook");
    Ok(runs::created(run_id, starts_at))
}

fn name(playbook: &Playbook) -> String {
    format!("{}/{}", playbook.summary.namespace, playbook.summary.name)
}

/// The request as the run keeps it: method, `url` (path and query), `path`,
/// `params` (the query's, the last of a repeated name), `headers` (lower-case
/// names, repeated ones joined by `, `, credentials left out), `content` (the
/// body as text) and `json` (the body parsed, when its Content-Type is JSON
/// and it parses). NUL characters, which PostgreSQL cannot store, become
/// U+FFFD.
fn request_of(method: &Method, uri: &Uri, headers: &HeaderMap, body: &[u8]) -> Value {
    let params: Map<String, Value> =
        url::form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes())
            .map(|(k, v)| (k.into_owned(), Value::String(v.into_owned())))
            .collect();
    let mut kept = Map::new();
    for name in headers.keys() {
        if CREDENTIAL_HEADERS.contains(&name.as_str()) {
            continue;
        }
        let values: Vec<String> = headers
            .get_all(name)
            .iter()
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .collect();
        kept.insert(name.as_str().to_owned(), Value::String(values.join(", ")));
    }
    let json = if json_body(headers) {
        serde_json::from_slice(body).unwrap_or(Value::Null)
    } else {
        Value::Null
    };
    without_nul(json!({
        "method": method.as_str(),
        "url": uri.path_and_query().map_or_else(|| uri.path().to_owned(), |pq| pq.to_string()),
        "path": uri.path(),
        "params": params,
        "headers": kept,
        "content": String::from_utf8_lossy(body),
        "json": json,
    }))
}

fn without_nul(value: Value) -> Value {
    match value {
        Value::String(text) if text.contains('\0') => Value::String(text.replace('\0', "\u{FFFD}")),
        Value::Array(items) => Value::Array(items.into_iter().map(without_nul).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .into_iter()
                .map(|(k, v)| (k.replace('\0', "\u{FFFD}"), without_nul(v)))
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    #[test]
    fn the_request_keeps_no_credentials_and_no_nul() {
        let mut headers = HeaderMap::new();
        for (name, value) in [
            ("authorization", "Basic eDp5"),
            ("x-hub-signature-256", "sha256=00"),
            ("svix-signature", "v1,xx"),
            ("cookie", "session=1"),
            ("content-type", "application/json; charset=utf-8"),
            ("x-event", "push"),
        ] {
            headers.insert(name, HeaderValue::from_static(value));
        }
        headers.append("x-event", HeaderValue::from_static("ping"));
        let uri: Uri = "/api/playbook/webhook/deploy?env=prod&env=dev&x=%00"
            .parse()
            .unwrap();
        let request = request_of(&Method::POST, &uri, &headers, br#"{"ref": "main\u0000"}"#);
        assert_eq!(
            request,
            json!({
                "method": "POST",
                "url": "/api/playbook/webhook/deploy?env=prod&env=dev&x=%00",
                "path": "/api/playbook/webhook/deploy",
                "params": {"env": "dev", "x": "\u{FFFD}"},
                "headers": {"content-type": "application/json; charset=utf-8", "x-event": "push, ping"},
                "content": "{\"ref\": \"main\\u0000\"}",
                "json": {"ref": "main\u{FFFD}"},
            })
        );
    }
}
