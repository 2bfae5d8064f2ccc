//! The OpenAPI document of the console API, served at `/api/openapi.json`
//! and committed as `console-api/openapi.json` (a test fails on drift; the
//! web client is generated from the committed copy). Its paths and schemas
//! come from the handlers the router registers ([`crate::routes::api`]);
//! this module adds only the document's title.

use std::sync::LazyLock;

use axum::http::header;
use axum::response::IntoResponse;
use utoipa::OpenApi;

#[derive(OpenApi)]
#[openapi(info(
    title = "Quarterdeck console API",
    description = "The HTTP API of the Quarterdeck console. A JSON body holding a NUL character (\\u0000) anywhere, in a key or a string, is refused with 400 naming the field: stored text cannot hold one."
))]
pub(crate) struct Info;

/// The document as committed: pretty JSON with a final newline.
static DOCUMENT: LazyLock<String> = LazyLock::new(|| {
    let (_, openapi) = crate::routes::api().split_for_parts();
    let mut text = openapi.to_pretty_json().unwrap_or_default();
    text.push('\n');
    text
});

/// This document.
#[utoipa::path(get, path = "/api/openapi.json", tag = "meta",
    responses((status = 200, description = "The OpenAPI document", content_type = "application/json", body = Object)))]
#[tracing::instrument]
pub(crate) async fn openapi_json() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/json")],
        DOCUMENT.as_str(),
    )
}

/// The document as committed.
pub fn document() -> String {
    DOCUMENT.clone()
}
